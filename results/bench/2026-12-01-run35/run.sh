#!/bin/bash
# Run 35's commands on the GPU host, from the repository root ($OUT: where the
# files go). The box probe's variants, the partial-sector modes and the rtm
# walks are in the probes' sources; ab-edit.sh needs the headers of
# scripts/gpu/carry-headers.sh in .carry/include.
set -u
cd scripts/gpu
nvcc -O3 -arch=sm_90 -std=c++17 -o /tmp/probe-ring probe-bulk-ring.cu || exit 1
nvcc -O3 -arch=sm_90 -std=c++17 -o /tmp/pp probe-partial-sectors.cu || exit 1
nvcc -O3 -arch=sm_90 -std=c++17 -o /tmp/prw probe-rtm-walk.cu || exit 1
# a: the box probe, twice at 512^3 and once at 384^3, then Nsight Compute on
# four of its kernels and the copy (one launch each, the 6th of the kernel).
/tmp/probe-ring 512 > $OUT/a-box-512-1.txt
/tmp/probe-ring 512 > $OUT/a-box-512-2.txt
/tmp/probe-ring 384 > $OUT/a-box-384.txt
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_active,sm__inst_executed.sum,gpc__cycles_elapsed.max
for v in "L1 32x4 z8" "L1 32x4 z8 light whole" "ring 8 rows z32 d6" "ring 8 rows z32 d6 light whole"; do
  echo "== $v"
  ncu --metrics $M -k regex:'l1box|ringbox' -s 5 -c 1 --csv /tmp/probe-ring 512 "$v" 2>&1 |
    grep -E '^"' | awk -F'","' '{print $(NF-2), $(NF-1), $NF}' | tr -d '"'
done > $OUT/a-box-512-ncu.txt
echo "== copy" >> $OUT/a-box-512-ncu.txt
ncu --metrics $M -k regex:copyKernel -s 5 -c 1 --csv /tmp/probe-ring 512 nothing 2>&1 |
  grep -E '^"' | awk -F'","' '{print $(NF-2), $(NF-1), $NF}' | tr -d '"' >> $OUT/a-box-512-ncu.txt
# b: partial sectors, with the atomic no-op completion (mode a).
for i in 1 2; do
  /tmp/pp 512 0:512 1:511 1:511:w 1:511:a 4:508 4:508:w 4:508:a > $OUT/b-partial-sectors-512-$i.txt
  /tmp/pp 384 0:384 1:383 1:383:w 1:383:a 4:380 4:380:a > $OUT/b-partial-sectors-384-$i.txt
done
# c: rtm's walk without arithmetic.
/tmp/prw 512 > $OUT/c-rtm-walk-512-1.txt
/tmp/prw 512 > $OUT/c-rtm-walk-512-2.txt
/tmp/prw 384 > $OUT/c-rtm-walk-384.txt
# d: rtm's masked kernels with their groups on 128-byte lines (run 34's al32).
cd ../..
ids=zmarch.32x8.v2.y1.z32.q.u2,zmarch.32x4.v2.y1.z16.q.u2.r,zmarch.32x4.v2.y1.z8.q.u2.w,zmarch.32x8.v2.y1.z8.q.u2.w,zmarch.32x4.v2.y1.z16.q.u2.w,zmarch.32x8.v2.y1.z32.q.u2.w,zmarch.32x4.v2.y1.z8.q.u2.r.w,zmarch.32x8.v2.y1.z16.q.u2.w
FS_ROUNDS=2 OUT=$OUT/d scripts/gpu/ab-edit.sh rtm 512 $ids \
  'al32=s/\((lo0|fs_lo\[0\]) \/ (\d+)\) \* \2/($1 \/ 32) * 32/g'
