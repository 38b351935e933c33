#!/usr/bin/env bash
# Coarsened body copies on this GPU: the lit test's apps (correctness, every
# launch compared) and a 8192^2 probe (in-app times of every shape and
# coarsening, three verify runs).
set -u
O=$OUT; C=.carry/coarsen
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2; date -u; } > $O/gpu.txt
for d in tune chosen probe; do (cd $C/$d && nvcc -arch=sm_90 -O3 -o app app.cu) > /tmp/build-$d.log 2>&1 || { echo "build $d failed"; cat /tmp/build-$d.log; }; done
{
USE_OURS=0 $C/tune/app; USE_OURS=1 $C/chosen/app
USE_OURS=0 $C/tune/app > /tmp/o.txt; USE_OURS=1 $C/chosen/app > /tmp/c.txt
diff /tmp/o.txt /tmp/c.txt && echo "USE_OURS=0 and the chosen y4 copy: identical checksums"
USE_OURS=verify FORGESTENCIL_VERIFY_LAUNCHES=all $C/tune/app 2>&1; echo "verify rc $?"
} > $O/lit-app.txt 2>&1
for r in 1 2 3; do echo "== probe verify run $r"; USE_OURS=verify FORGESTENCIL_VERIFY_LAUNCHES=all $C/probe/app 2>&1 | grep -E "kernel smooth|compared|DIFFER|checksum"; done > $O/probe.txt
grep -E "identical checksums|DIFFER|compared" $O/lit-app.txt
grep -E "verify run|smooth\[(32x4x1|256x1x1|64x4x1)(/c..)?\]|compared" $O/probe.txt
