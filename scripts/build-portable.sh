#!/usr/bin/env bash
# Builds an fs-rewrite that runs on a host without LLVM (a GPU host, where
# it can then tune with fs-tune in one command): LLVM and Clang linked
# statically, the C++ runtime too, and Clang's builtin headers packed beside
# the binary (lib/clang/<major>/include, found automatically). Needs what
# scripts/setup.sh installs. Writes dist/fs-rewrite-portable.tar.xz.
#
#   scripts/build-portable.sh            # then, on the other host:
#   tar xJf fs-rewrite-portable.tar.xz && fs-rewrite-portable/bin/fs-rewrite --version
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${FS_PORTABLE_BUILD_DIR:-$root/build-portable}
dist=$root/dist
llvm_config=${LLVM_CONFIG:-/usr/lib/llvm-22/bin/llvm-config}
resource=$("$llvm_config" --libdir)/clang/$("$llvm_config" --version | cut -d. -f1)
[ -d "$resource/include" ] || { echo "build-portable: no $resource/include" >&2; exit 1; }
mkdir -p "$build"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFS_STATIC_LLVM=ON -DFS_ENABLE_TESTS=OFF > "$build/portable.log" 2>&1 ||
  { tail -20 "$build/portable.log"; exit 1; }
ninja -C "$build" -j "${FS_JOBS:-2}" fs-rewrite >> "$build/portable.log" 2>&1 ||
  { tail -20 "$build/portable.log"; exit 1; }
pkg=$dist/fs-rewrite-portable
rm -rf "$pkg" && mkdir -p "$pkg/bin" "$pkg/lib/clang"
strip -o "$pkg/bin/fs-rewrite" "$build/bin/fs-rewrite"
cp -r "$resource" "$pkg/lib/clang/"
rm -rf "$pkg/lib/clang/$(basename "$resource")/lib" # sanitizer runtimes: not needed
cp "$root/knowledge/operator-matrix.json" "$pkg/"
tar -C "$dist" -cJf "$dist/fs-rewrite-portable.tar.xz" fs-rewrite-portable
echo "build-portable: $(du -h "$dist/fs-rewrite-portable.tar.xz" | cut -f1) in $dist/fs-rewrite-portable.tar.xz"
echo "build-portable: needs at run time: $(readelf -d "$pkg/bin/fs-rewrite" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')"
