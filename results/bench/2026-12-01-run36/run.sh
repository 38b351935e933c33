#!/bin/bash
# Run 36's commands on the GPU host, from the repository root ($OUT: where the
# files go; .carry/include from scripts/gpu/carry-headers.sh, .carry/ir/rtm.json
# the IR of apps/rtm's fd3d_r4_kernel from fs-rewrite --dump-ir).
set -u
# a: the edit, on the generator of commit a1eb1ea: the unmasked kernels' first
# block starts at the 128-byte line holding the first aligned column and its
# threads before that column return; the masked (.w) kernels' groups start at
# the line (run 34's al32).
LN='s/\(\(fs_xe - fs_xa\) \//((fs_xe - fs_xa \/ 32 * 32) \//g; s/const Idx x0 = fs_xa \+ \(\(Idx\)blockIdx/const Idx x0 = fs_xa \/ 32 * 32 + ((Idx)blockIdx/g; s/(if \(x0 >= fs_xe\)\n\s*return;)/$1\n  if (x0 < fs_xa)\n    return;/g; s/fs_blocks\(fs_xe - fs_xa, /fs_blocks(fs_xe - fs_xa \/ 32 * 32, /g'
AL='s/\((lo0|fs_lo\[0\]) \/ (\d+)\) \* \2/($1 \/ 32) * 32/g'
ids=zmarch.32x4.v2.y1.z16.q.u2.r,zmarch.32x8.v2.y1.z32.q.u2,zmarch.32x4.v2.y1.z16.q.u2,zmarch.32x4.v2.y1.z8.q.u2.r,zmarch.32x4.v2.y1.z8.q.u2,zmarch.32x8.v2.y1.z16.q.u2,zmarch.32x4.v4.y1.z16.q.u2.r,zmarch.32x4.v2.y1.z32.q.u2.r
FS_ROUNDS=3 OUT=$OUT/named scripts/gpu/ab-edit.sh rtm 512 $ids "line=$LN;$AL"
ids=zmarch.32x4.v4.y1.z16.q.u2.r.w,zmarch.32x4.v2.y1.z16.q.u2.r,zmarch.32x4.v4.y1.z16.q.u2.r,zmarch.32x4.v2.y1.z8.q.u2.r,zmarch.32x8.v2.y1.z32.q.u2,zmarch.32x4.v4.y1.z8.q.u2.r,zmarch.32x4.v2.y1.z16.q.u2
FS_ROUNDS=3 OUT=$OUT/app scripts/gpu/ab-edit.sh .carry/ir/rtm.json 384 $ids "line=$LN;$AL"
# b: with the change in the generator (commit 0d1f609).
OUT=$OUT/bench FS_REPS=40 scripts/gpu/bench-all.sh rtm box3d_r1   # its files are b-* here
ids=zmarch.32x4.v2.y1.z16.q.u2.r,zmarch.32x4.v4.y1.z16.q.u2.r.w,zmarch.32x4.v2.y1.z16.q.u2,zmarch.32x8.v2.y1.z32.q.u2,zmarch.32x8.v2.y1.z16.q.u2,zmarch.32x4.v2.y1.z32.q.u2,zmarch.32x4.v4.y1.z16.q.u2.a1.r.cs
build-gpu/bin/fs-bench --stencil-file .carry/ir/rtm.json --shape 384 --strategy $ids --reps 40 \
  --json-out $OUT/b-rtm-app-results.json > $OUT/b-rtm-app-table.txt
# c: the box's zsum shapes with the change (vectors of 2, wider blocks, short runs).
ids=zsum.32x4.v2.y1.z8,zsum.32x8.v2.y1.z8,zsum.64x4.v2.y1.z8,zsum.32x4.v2.y1.z8.u3,zsum.32x4.v2.y1.z16,zsum.32x4.v4.y1.z8,zsum.32x4.v4.y1.z8.u3.w,zsum.32x8.v4.y1.z8,zsum.64x4.v4.y1.z8,zsum.64x2.v4.y1.z8,zsum.32x4.v4.y1.z4,zsum.64x4.v4.y1.z4,zsum.128x2.v4.y1.z4,zsum.128x1.v4.y1.z8
build-gpu/bin/fs-bench --stencil box3d_r1 --shape 512 --strategy $ids --reps 40 > $OUT/c-box-shapes-table.txt
# d: the box probe with two float4 groups per thread (l1wide), same source
# revision as this folder's commit.
cd scripts/gpu && nvcc -O3 -arch=sm_90 -std=c++17 -o /tmp/probe-ring probe-bulk-ring.cu
/tmp/probe-ring 512 > $OUT/d-box-probe-512-1.txt
/tmp/probe-ring 512 > $OUT/d-box-probe-512-2.txt
/tmp/probe-ring 384 > $OUT/d-box-probe-384.txt
# e: both box probes again after their fill and comparison moved into
# probe-common.cuh and the rings' setup into functions (this folder's last commit).
nvcc -O3 -arch=sm_90 -std=c++17 -o /tmp/probe-ring probe-bulk-ring.cu
/tmp/probe-ring 512 > $OUT/e-box-probe-512-1.txt
/tmp/probe-ring 512 > $OUT/e-box-probe-512-2.txt
/tmp/probe-ring 384 > $OUT/e-box-probe-384.txt
nvcc -O3 -arch=sm_90 -std=c++17 -o /tmp/probe-box probe-box-loads.cu && /tmp/probe-box > $OUT/e-probe-box-loads.txt
