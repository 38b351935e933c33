#!/bin/bash
# Run 37's commands on the GPU host, from the repository root ($OUT: where the
# files go; .carry/include from scripts/gpu/carry-headers.sh; .carry/bundles/cheats
# the cheating suite's bundle, written as test/Tune/cheats-gpu.test writes it,
# on a host with LLVM, APP a copy of test/Tune/Inputs/heat with its cc.json (@DIR@
# replaced by APP) as
# compile_commands.json:
#   fs-rewrite --app heat --bundle .carry/bundles/cheats --bundle-budget 1 APP/compile_commands.json
#   for n in honest writes_nothing interior_only cached_result other_stream \
#            half_precision size_special out_of_bounds; do
#     fs-tune .carry/bundles/cheats --add-only \
#       --add-candidate heat7=test/Tune/Inputs/cheats/$n.cu:$n
#   done
set -u
part=${1:-all}
if [ $part = a ] || [ $part = all ]; then
# a: the box's masked kernels with the cut groups' points outside the domain
# completed by atomic no-ops (run 35's `atom`, on the generated kernels).
AT='s/if \((fs_m\d)\)\n(\s*)out\[([^\]\n]*)\] = (\w+);/if ($1)\n$2out[$3] = $4;\n$2else if (!fs_xwhole)\n$2  atomicOr((unsigned int *)&out[$3], 0u);/g'
FS_ROUNDS=3 OUT=$OUT/a scripts/gpu/ab-edit.sh box3d_r1 512 zsum.32x4.v4.y1.z8.u3.w,zsum.32x4.v4.y1.z8.w "atom=$AT"
fi
if [ $part = b ] || [ $part = all ]; then
# b: every target once more on this commit, with its recorded best (and the box's
# two best), and the cheating suite.
export FS_STRATEGY_star2d_r1=multipoint.256x1.v4.y1.z4
export FS_STRATEGY_box2d_r1=multipoint.256x1.v4.y1.z4
export FS_STRATEGY_star3d_r1_f64=multipoint.32x4.v2.y1.z2
export FS_STRATEGY_box3d_r1=zsum.32x4.v4.y1.z8.u3.w,zsum.32x4.v4.y1.z8
export FS_STRATEGY_rtm=zmarch.32x4.v2.y1.z16.q.u2.r
export FS_STRATEGY_fdtd_e=multipoint.64x4.v2.y2.z1
export FS_STRATEGY_fdtd_h=naive.64x4.v1.y1.z1
export FS_STRATEGY_hotspot2d=multipoint.128x1.v4.y1.z2
OUT=$OUT/b FS_REPS=40 scripts/gpu/bench-all.sh
fi
if [ $part = c ] || [ $part = all ]; then
mkdir -p $OUT/c
cmake -S . -B /tmp/fs-tune-build -G Ninja -DFS_ENABLE_LLVM=OFF -DFS_ENABLE_TESTS=OFF \
  -DFS_EXTRA_INCLUDE_DIR=$PWD/.carry/include -DCMAKE_BUILD_TYPE=Release > $OUT/c/build.log 2>&1 &&
  ninja -C /tmp/fs-tune-build fs-tune >> $OUT/c/build.log 2>&1 || { tail -20 $OUT/c/build.log; exit 1; }
/tmp/fs-tune-build/bin/fs-tune .carry/bundles/cheats -j $(nproc) --no-screen --rounds 1 --reps 5 --budget 9 \
  --out $OUT/c/cheats.json 2> $OUT/c/cheats.progress > $OUT/c/cheats.txt
cat $OUT/c/cheats.txt
fi
