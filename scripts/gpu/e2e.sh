#!/usr/bin/env bash
# End-to-end measurement on a GPU host: builds the LLVM-free tools and runs
# fs-harness on each app given (default: rtm fdtd3d) with its committed
# patches, USE_OURS=0/1 interleaved. Registry updates land in
# results/integration_registry.json; per-run records in $OUT (or results/e2e).
#
#   scripts/gpu/carry-headers.sh        # where nlohmann/CLI11 are installed
#   scripts/gpu/e2e.sh [--rounds N] [app...]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
rounds=5
if [ "${1:-}" = "--rounds" ]; then rounds=$2; shift 2; fi
apps=("$@")
[ ${#apps[@]} -gt 0 ] || apps=(rtm fdtd3d)
out=${OUT:-$root/results/e2e}
mkdir -p "$out"
build=${FS_BUILD_DIR:-$root/build-gpu}
extra=()
[ -d "$root/.carry/include" ] && extra=(-DFS_EXTRA_INCLUDE_DIR="$root/.carry/include")
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFS_PARTS= \
  -DFS_ENABLE_LLVM=OFF -DFS_ENABLE_TESTS=OFF "${extra[@]}" >/dev/null
cmake --build "$build" --target fs-harness -j "$(nproc)" >/dev/null
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/gpu.txt"
status=0
for app in "${apps[@]}"; do
  echo "== fs-harness --app $app --rounds $rounds"
  "$build/bin/fs-harness" --app "$app" --rounds "$rounds" --root "$root" \
    --work-dir "${FS_WORK_DIR:-/tmp/fs-work}/$app" \
    --json "$out/$app-runs.json" 2>&1 | tee "$out/$app-harness.log" || status=1
done
cp "$root/results/integration_registry.json" "$out/" 2>/dev/null || true
exit $status
