#!/bin/bash
# perks-2d9pt end to end with the patch in patches/perks-2d9pt/, 5 rounds, on
# whatever GPU the host has (its name first); every record in one tarball.
set -u
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
echo "$gpu" | tee $OUT/gpu.txt
t0=$(date +%s)
mkdir -p /tmp/e2e
OUT=/tmp/e2e FS_WORK_DIR=$PWD/build-gpu/work-e2e scripts/gpu/apps-e2e.sh --rounds 5 perks-2d9pt > /tmp/e2e/e2e.log 2>&1
echo "e2e rc=$? at $(( $(date +%s) - t0 )) s"
cp results/integration_registry.json /tmp/e2e/registry-after.json
tar czf $OUT/e2e.tgz -C /tmp e2e
cp /tmp/e2e/e2e.log $OUT/
grep -E "speed-up|check:|USE_OURS=|verify:" /tmp/e2e/e2e.log | tail -30
cat /tmp/e2e/table.txt
