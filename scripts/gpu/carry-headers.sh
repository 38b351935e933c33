#!/bin/sh
# Copies the header-only dependencies of the GPU-side tools (nlohmann/json,
# CLI11) into .carry/include, so a GPU host without them can build with
#   cmake -DFS_ENABLE_LLVM=OFF -DFS_EXTRA_INCLUDE_DIR=$PWD/.carry/include
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
dest="$root/.carry/include"
mkdir -p "$dest"
for dir in /usr/include/nlohmann /usr/include/CLI; do
  if [ ! -d "$dir" ]; then
    echo "carry-headers: $dir is missing (install nlohmann-json3-dev and libcli11-dev)" >&2
    exit 1
  fi
  rm -rf "$dest/$(basename "$dir")"
  cp -r "$dir" "$dest/"
done
echo "carry-headers: copied nlohmann and CLI into $dest"
