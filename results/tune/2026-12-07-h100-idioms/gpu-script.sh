#!/bin/bash
# The kernels of this session's analysis idioms: every candidate verified against its original.
set -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee $OUT/gpu.txt
t0=$(date +%s)
FS_TAR=1 OUT=$OUT/tune timeout 520 scripts/gpu/tune-bundles.sh .carry/bundles/* > $OUT/tune.log 2>&1
echo "rc=$? at $(( $(date +%s) - t0 )) s"
tail -16 $OUT/tune.log
