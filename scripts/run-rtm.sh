#!/usr/bin/env bash
# The main job on the in-tree rtm proxy app: set up ForgeStencil, export the
# app's compile_commands.json, and run fs-rewrite on it (ranked hotspots,
# Stencil IR, and the integration patch under patches/rtm/).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${FS_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh"

app_build="$build/apps/rtm"
cmake -S "$root/apps/rtm/src" -B "$app_build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_COMPILER="${CUDACXX:-/usr/local/cuda/bin/nvcc}" >/dev/null
mkdir -p "$build/out/rtm"
"$build/bin/fs-rewrite" --app rtm --source-root "$root/apps/rtm/src" \
  --dump-ir "$build/out/rtm/stencil-ir.json" --list "$app_build"
echo "fs-rewrite: Stencil IR written to $build/out/rtm/stencil-ir.json"
# The integration patch (the committed one is patches/rtm/; this run writes
# a fresh one beside the build so the tree is left as it was).
"$build/bin/fs-rewrite" --app rtm --source-root "$root/apps/rtm/src" \
  --emit-patch --output-dir "$build/out/rtm/patches" "$app_build"
