#!/bin/bash
# Builds fs-bench without LLVM into build-gpu/ on a GPU host (headers from
# scripts/gpu/carry-headers.sh in .carry/include), always through ninja so a
# build left by an earlier run is brought up to date. Appends cmake's and
# ninja's output to the log file given (default: none), prints the last of it
# on failure, and prints the binary's path on success.
#
#   bench=$(scripts/gpu/build-fs-bench.sh "$OUT/build.log") || exit 1
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
log=${1:-/dev/null}
cmake -S "$root" -B "$root/build-gpu" -G Ninja -DFS_ENABLE_LLVM=OFF \
  -DFS_ENABLE_TESTS=OFF -DFS_PARTS="IR;Forge" \
  -DFS_EXTRA_INCLUDE_DIR="$root/.carry/include" \
  -DCMAKE_BUILD_TYPE=Release >>"$log" 2>&1 &&
  ninja -C "$root/build-gpu" fs-bench >>"$log" 2>&1 ||
  { tail -30 "$log" >&2; exit 1; }
echo "$root/build-gpu/bin/fs-bench"
