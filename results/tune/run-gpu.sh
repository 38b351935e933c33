#!/bin/sh
# Runs on a GPU host with only CUDA, CMake and a compiler: builds fs-tune
# (no LLVM) and runs it on the bundles fs-rewrite wrote elsewhere and that
# were carried to .carry/bundles (scripts/gpu/carry-headers.sh carries the
# header-only dependencies). Details go to $OUT (or ./tune-out).
root=$(pwd)
out=${OUT:-$root/tune-out}
mkdir -p "$out"
build=/tmp/fs-tune-build
cmake -S "$root" -B "$build" -G Ninja -DFS_ENABLE_LLVM=OFF -DFS_ENABLE_TESTS=OFF \
  -DFS_EXTRA_INCLUDE_DIR="$root/.carry/include" > "$out/build.log" 2>&1 &&
  ninja -C "$build" fs-tune >> "$out/build.log" 2>&1 || { tail -20 "$out/build.log"; exit 1; }
tune="$build/bin/fs-tune"
nvidia-smi -L
jobs=$(nproc)
# The cheating suite: dynamic checks alone (the screen is off).
"$tune" .carry/bundles/cheats -j "$jobs" --no-screen --rounds 1 --reps 5 --budget 9 \
  --out "$out/cheats.json" 2> "$out/cheats.progress" > "$out/cheats.txt"
cat "$out/cheats.txt"
for app in rtm fdtd3d; do
  "$tune" .carry/bundles/$app -j "$jobs" --budget "${BUDGET:-4}" --rounds 2 --reps 20 \
    --out "$out/$app.json" 2> "$out/$app.progress" > "$out/$app.txt"
  cat "$out/$app.txt"
done
