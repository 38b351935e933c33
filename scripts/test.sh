#!/usr/bin/env bash
# Sets up (installs dependencies, configures, builds) and runs the whole test
# suite: lit + FileCheck tests and the gtest unit tests, through lit.
# Ends with a summary line "N passed, N failed, N skipped".
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${FS_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh"
cmake --build "$build" --target check
