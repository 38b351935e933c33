#!/usr/bin/env bash
# Baseline runs of every proxy app, unpatched, full and --small size, on a GPU
# host: builds each app from apps/<app>/src with its own CMake and runs it
# once per size, keeping the whole output. Prints the timer and check lines.
#   scripts/gpu/baselines.sh [app...]
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
apps=("$@")
[ ${#apps[@]} -gt 0 ] || apps=(rtm fdtd3d heat3d jacobi2d hotspot2d)
out=${OUT:-$root/results/baselines}
work=${FS_WORK_DIR:-/tmp/fs-baselines}
mkdir -p "$out" "$work"
nvcc=${CUDACXX:-/usr/local/cuda/bin/nvcc}
for app in "${apps[@]}"; do
  ( cmake -S "$root/apps/$app/src" -B "$work/$app" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_COMPILER="$nvcc" >/dev/null && cmake --build "$work/$app" >/dev/null ) &
done
wait
status=0
for app in "${apps[@]}"; do
  bin=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['binary'])" "$root/apps/$app/app.json")
  for size in full small; do
    args=()
    [ $size = small ] && args=(--small)
    log="$out/$app-$size.log"
    if ( cd "$work/$app" && "./$bin" "${args[@]}" ) > "$log" 2>&1; then rc=0; else rc=$?; status=1; fi
    echo "== $app $size (exit $rc)"
    grep -E 'TIMER|Time loop|Solver loop time|Total compute time|CHECK|grid|size|steps' "$log" | head -6
  done
done
exit $status
