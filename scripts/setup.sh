#!/usr/bin/env bash
# Installs every system dependency from Debian (idempotently), then configures
# and builds ForgeStencil into ${FS_BUILD_DIR:-build}.
#
#   scripts/setup.sh              everything (needs root or sudo for apt-get)
#   FS_ENABLE_LLVM=OFF scripts/setup.sh
#                                 only the LLVM-free GPU-side tools (fs-tune,
#                                 fs-harness, fs-bench); no package installs
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${FS_BUILD_DIR:-$root/build}
llvm=${FS_ENABLE_LLVM:-ON}

packages=(
  cmake ninja-build g++ python3 git patch
  clang-22 libclang-22-dev libclang-cpp22-dev llvm-22-dev llvm-22-tools
  nlohmann-json3-dev libcli11-dev libcurl4-openssl-dev libdtl-dev
  libcpp-httplib-dev googletest libgtest-dev
)

install_packages() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
      || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "setup: installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
}

if [ "$llvm" = ON ] && command -v apt-get >/dev/null; then
  install_packages
fi

cuda=${CUDA_PATH:-/usr/local/cuda}
if [ ! -x "$cuda/bin/nvcc" ]; then
  echo "setup: note: no nvcc under $cuda; tests that need nvcc are skipped" >&2
fi

cmake -S "$root" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE="${FS_BUILD_TYPE:-Release}" \
  -DFS_ENABLE_LLVM="$llvm" \
  ${FS_EXTRA_INCLUDE_DIR:+-DFS_EXTRA_INCLUDE_DIR="$FS_EXTRA_INCLUDE_DIR"} >/dev/null
cmake --build "$build" -j "${FS_JOBS:-2}"
