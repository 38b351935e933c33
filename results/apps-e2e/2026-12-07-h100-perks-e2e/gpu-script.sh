#!/bin/bash
# PERKS 2d9pt on one GPU: in-app times of 16 candidates, then the committed patch and the
# 256x1 z2 patch end to end, alternated twice, 5 interleaved round pairs each.
set -u
root=$PWD
p=patches/perks-2d9pt/0001-forge-launchers-for-kernel2d-restrict-box.patch
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
t0=$(date +%s)
mkdir -p $OUT/inapp
OUT=$OUT/inapp scripts/gpu/in-app-measure.sh perks-2d9pt .carry/pk/perks-2d9pt-inapp.patch > $OUT/inapp-9.log 2>&1
echo "inapp rc=$? at $(( $(date +%s) - t0 )) s"
cp .carry/pk/perks-2d9pt-committed.patch $p
FS_WORK_DIR=$root/build-gpu/work-c OUT=$OUT/build-c scripts/gpu/apps-e2e.sh --build-only perks-2d9pt > $OUT/build-committed.log 2>&1
cp .carry/pk/perks-2d9pt-256x1.patch $p
FS_WORK_DIR=$root/build-gpu/work-n OUT=$OUT/build-n scripts/gpu/apps-e2e.sh --build-only perks-2d9pt > $OUT/build-256x1.log 2>&1
echo "builds at $(( $(date +%s) - t0 )) s"
for r in 1 2; do
  cp .carry/pk/perks-2d9pt-committed.patch $p
  FS_WORK_DIR=$root/build-gpu/work-c OUT=$OUT/c$r scripts/gpu/apps-e2e.sh --no-build --rounds 5 perks-2d9pt > $OUT/e2e-c$r.log 2>&1
  cp .carry/pk/perks-2d9pt-256x1.patch $p
  FS_WORK_DIR=$root/build-gpu/work-n OUT=$OUT/n$r scripts/gpu/apps-e2e.sh --no-build --rounds 5 perks-2d9pt > $OUT/e2e-n$r.log 2>&1
  echo "round $r at $(( $(date +%s) - t0 )) s"
done
cp .carry/pk/perks-2d9pt-committed.patch $p
grep -E "ratio|multipoint|zmarch|naive|identical" $OUT/inapp-9.log | tail -22
for f in c1 n1 c2 n2; do echo "$f: $(tail -1 $OUT/e2e-$f.log)"; done
