#!/usr/bin/env bash
# In-app kernel times of the rewritten kernels, both modes, with Nsight
# Compute on a few launches of the full-size run (the vendored, patched, built
# apps that scripts/gpu/e2e.sh left in $FS_WORK_DIR). Prints duration and
# DRAM bytes per launch; effective bandwidth is computed from the
# compulsory bytes elsewhere.
#   scripts/gpu/inapp-kernels.sh <app> <kernel-regex> [app args...]
set -uo pipefail
app=$1 kernels=$2; shift 2
work=${FS_WORK_DIR:-/tmp/fs-work}/$app
out=${OUT:-.}
for mode in 0 1; do
  USE_OURS=$mode timeout 240 ncu --clock-control none --csv \
    --kernel-name "regex:$kernels" --launch-skip 20 --launch-count 6 \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
    "$work/build/$app" "$@" > "$out/$app-ncu-mode$mode.csv" 2> "$out/$app-ncu-mode$mode.err" ||
    echo "ncu failed for $app mode $mode (see $app-ncu-mode$mode.err)"
  grep -E '"(gpu__time_duration.sum|dram__bytes_read.sum|dram__bytes_write.sum)"' \
    "$out/$app-ncu-mode$mode.csv" | awk -F'","' -v m=$mode '{print "mode " m ": " $5 " " $(NF-2) " " $(NF-1) " " $NF}' | head -12
done
