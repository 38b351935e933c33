#!/bin/bash
# Run 39 on the GPU host, from the repository root ($OUT: where the files go;
# .carry/include from scripts/gpu/carry-headers.sh): Nsight Compute on the box's
# two best kernels, its original, the copy kernel and the footprint kernel, one
# timed-size launch each (the sections of scripts/gpu/profile-variants.sh).
set -u
bench=$(scripts/gpu/build-fs-bench.sh "$OUT/build.log") || exit 1
work=/tmp/fs-profile-box
ids=zsum.32x4.v4.y1.z8.u3.w,zsum.32x4.v4.y1.z8
"$bench" --stencil box3d_r1 --shape 512 --strategy $ids --work-dir $work --build-only \
  --jobs "$(nproc)" >> "$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
sections=(--section SpeedOfLight --section Occupancy --section LaunchStats
          --section WarpStateStats --section MemoryWorkloadAnalysis
          --section SchedulerStats --section ComputeWorkloadAnalysis)
profile() { # kernel-regex skip report-name
  ncu "${sections[@]}" --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,smsp__inst_executed.sum \
    -k "regex:$1" --launch-skip $2 --launch-count 1 "$work/bench" --reps 60 > "$OUT/$3.txt" 2>&1 ||
    echo "ncu failed for $3" >&2
}
profile '^fs_original_kernel' 40 original
profile '^fs_cand_0_kernel[^_]*$' 40 u3w
profile '^fs_cand_1_kernel[^_]*$' 40 unmasked
profile '^fs_copy4' 5 copy
profile '^fs_footprint' 40 footprint
for r in original u3w unmasked footprint copy; do
  printf '%s\n' "== $r"
  grep -E "^\s+(Duration|DRAM Throughput|L1/TEX Hit Rate|L2 Hit Rate|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per Thread|Issue Slots Busy|L1/TEX Cache Throughput|L2 Cache Throughput|Executed Ipc Active|dram__bytes_read.sum|dram__bytes_write.sum|lts__t_sectors_srcunit_tex_op_read.sum|lts__t_sectors_srcunit_tex_op_write.sum|smsp__inst_executed.sum)" "$OUT/$r.txt" | sed 's/  */ /g'
done
# b: the SASS of the two candidates, whose loops utils/sass-loops.py counts
# (elsewhere; b-sass-loops.txt).
for c in cand_0 cand_1; do cuobjdump -sass $work/$c.o > $OUT/$c.sass; done
