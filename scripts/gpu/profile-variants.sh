#!/bin/bash
# Profiles chosen fs-bench variants with Nsight Compute on a GPU host: builds
# fs-bench (no LLVM), builds the bench of one stencil, and runs ncu on one
# full-size launch of each variant named (and of the original), after the
# verification launches. One text report per variant goes to $OUT.
#
#   scripts/gpu/profile-variants.sh STENCIL DTYPE SHAPE VARIANT...
#   e.g. scripts/gpu/profile-variants.sh rtm f32 512 zmarch.32x4.v2.y1.z16.q.u2
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
stencil=$1 dtype=$2 shape=$3
shift 3
OUT=${OUT:-$root/profile-out}
mkdir -p "$OUT"
work=${FS_BENCH_WORK:-/tmp/fs-profile-work}/$stencil-$dtype-$shape
: > "$OUT/build.log"
bench=$(scripts/gpu/build-fs-bench.sh "$OUT/build.log")
"$bench" --stencil "$stencil" --dtype "$dtype" --shape "$shape" \
  --strategy all --work-dir "$work" --build-only --jobs "$(nproc)" >> "$OUT/build.log" 2>&1
sections=(--section SpeedOfLight --section Occupancy --section LaunchStats
          --section WarpStateStats --section MemoryWorkloadAnalysis
          --section SchedulerStats --section ComputeWorkloadAnalysis)
profile() { # kernel-regex report-name
  # The verification cases come first (seven sizes, each kernel launched a
  # few times per case); skip well past them into the timed repetitions,
  # all of the timed size.
  ncu "${sections[@]}" -k "regex:$1" --launch-skip 40 --launch-count 1 \
    "$work/bench" --reps 60 > "$OUT/$2.txt" 2>&1 || echo "ncu failed for $2" >&2
}
profile '^fs_original_kernel' "$stencil-original"
for v in "$@"; do
  f=$(grep -l "^// Strategy: $v\$" "$work"/cand_*.cu | head -1)
  if [ -z "$f" ]; then echo "no variant $v" >&2; continue; fi
  n=$(basename "$f" .cu)
  profile "^fs_${n}_kernel" "$stencil-$v"
done
# One line per report: the figures that decide what bounds a kernel.
for r in "$OUT"/"$stencil"-*.txt; do
  printf '%s\n' "== $(basename "$r" .txt)"
  grep -E "^\s+(Duration|DRAM Throughput|Memory Throughput|L1/TEX Hit Rate|L2 Hit Rate|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per Thread|Issue Slots Busy|No Eligible|Theoretical Occupancy|L1/TEX Cache Throughput|L2 Cache Throughput|Executed Ipc Active)" "$r" | sed 's/  */ /g'
done
