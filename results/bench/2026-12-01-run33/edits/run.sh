#!/bin/bash
# Run 33's trials (a) and (b), from the repository root on a GPU host, with
# headers from scripts/gpu/carry-headers.sh in .carry/include and rtm's app IR
# (fs-rewrite --dump-ir of apps/rtm) in .carry/ir/rtm.json:
#   results/bench/2026-12-01-run33/edits/run.sh a|b
# Each edit is a perl file applied by scripts/gpu/ab-edit.sh to the generated
# candidates (ptx.pl: masked stores as predicated PTX stores; imm.pl: the
# lane stores at constant offsets from the group's address; s01.pl: the
# vector kernel's contiguous stride as the constant 1, which its launcher
# requires; novl.pl: the lane stores dropped, timing only).
set -uo pipefail
E=./results/bench/2026-12-01-run33/edits
O=${OUT:-$PWD/ab-out}
P="do \"$E/ptx.pl\"; die \$@ if \$@;"
I="do \"$E/imm.pl\";"
S="do \"$E/s01.pl\";"
V="do \"$E/novl.pl\";"
NM='s/if \(fs_xwhole\)\n\s*([^\n]*;\n)(\s*if \(fs_m\d\)\n[^\n]*\n)+/$1/sg;'
export FS_ROUNDS=2
mkdir -p "$O/box" "$O/rtm"
case ${1:-} in
a)
  OUT=$O/box scripts/gpu/ab-edit.sh box3d_r1 512 \
    zsum.32x4.v4.y1.z8.w,zsum.32x4.v4.y1.z8.u3.w,zsum.64x4.v4.y1.z8.w,zsum.32x4.v4.y1.z8 \
    "nomask=$NM" "ptx=$P" "ptxnc=\$clob=0; $P"
  OUT=$O/rtm scripts/gpu/ab-edit.sh .carry/ir/rtm.json 384 \
    zmarch.32x4.v4.y1.z16.q.u2.r.w,zmarch.32x4.v2.y1.z16.r.w,zmarch.32x4.v4.y1.z16.q.u2.r \
    "nomask=$NM" "ptx=$P" "ptxnc=\$clob=0; $P" ;;
b)
  OUT=$O/box scripts/gpu/ab-edit.sh box3d_r1 512 \
    zsum.32x4.v4.y1.z8.w,zsum.32x4.v4.y1.z8.u3.w,zsum.64x4.v4.y1.z8.w,zsum.32x4.v4.y1.z8.w.m10 \
    "nomask=$NM" "ptx=$P" "ptxis=$P $I $S" "bases=$S" "nomasks=$NM $S" "ptxv=$P $V"
  for b in base nomask ptx ptxis bases nomasks ptxv; do
    cuobjdump -sass "${FS_BENCH_WORK:-/tmp/fs-ab-work}/$b/cand_0.o" >"$O/$b.sass"
    echo "== $b"
    scripts/sass-blocks.py "$O/$b.sass" fs_cand_0_kernelIiE | head -12
  done >"$O/box/sass.txt"
  OUT=$O/rtm scripts/gpu/ab-edit.sh .carry/ir/rtm.json 384 \
    zmarch.32x4.v4.y1.z16.q.u2.r.w,zmarch.32x4.v2.y1.z16.r.w \
    "bases=$S" "nomasks=$NM $S" "ptxis=$P $I $S" ;;
*) sed -n '2,10p' "$0"; exit 2 ;;
esac
