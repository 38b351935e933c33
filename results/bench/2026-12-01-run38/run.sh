#!/bin/bash
# Run 38's commands on the GPU host, from the repository root ($OUT: where the
# files go; .carry/include from scripts/gpu/carry-headers.sh).
set -u
# a: the box's masked kernels with the cut groups' points outside the domain
# completed by atomic no-ops issued once per row and run before the run's
# loop (`hoist`), not after each store as run 37's `atom`.
HO='s/(\n(\s*)const Idx fs_b = x0 \* s0 \+ y0 \* s1;\n)/$1$2if (!fs_xwhole)\n$2  for (Idx fs_z = zs; fs_z < ze; ++fs_z)\n$2    for (int fs_k = 0; fs_k < 4; ++fs_k)\n$2      if ((x0 + fs_k < lo0 || x0 + fs_k >= hi0) \&\& x0 + fs_k < (Idx)(nx))\n$2        atomicOr((unsigned int *)(out + fs_b + fs_k * s0 + fs_z * s2), 0u);\n/'
ids=zsum.32x4.v4.y1.z8.u3.w,zsum.32x4.v4.y1.z16.u3.w,zsum.32x8.v4.y1.z8.u3.w,zsum.64x4.v4.y1.z8.u3.w,zsum.32x4.v4.y1.z4.u3.w
FS_ROUNDS=3 OUT=$OUT/a scripts/gpu/ab-edit.sh box3d_r1 512 $ids "hoist=$HO"
