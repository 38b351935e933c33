#!/bin/sh
# Copies the header-only dependencies of the GPU-side tools (nlohmann/json,
# CLI11) and libcurl's headers into .carry/include, so a GPU host without
# them can build with
#   cmake -DFS_ENABLE_LLVM=OFF -DFS_EXTRA_INCLUDE_DIR=$PWD/.carry/include
# libcurl's headers are for fs-agent: a host that has libcurl's shared library
# but not its development package builds it against the carried headers.
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
# Debian keeps curl/ under the multiarch directory; elsewhere it is plain.
curl=""
for dir in "/usr/include/$(uname -m)-linux-gnu/curl" /usr/include/curl; do
  if [ -f "$dir/curl.h" ]; then
    curl=$dir
    break
  fi
done
rm -rf "$dest/curl"
if [ -n "$curl" ]; then
  cp -r "$curl" "$dest/"
  echo "carry-headers: copied nlohmann, CLI and curl into $dest"
else
  echo "carry-headers: no curl headers here (install libcurl4-openssl-dev);" \
    "fs-agent will build only where they are" >&2
  echo "carry-headers: copied nlohmann and CLI into $dest"
fi
