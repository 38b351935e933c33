#!/usr/bin/env bash
# Sets up (installs dependencies, configures, builds) and runs the whole test
# suite: lit + FileCheck tests and the gtest unit tests, through lit.
# Ends with a summary line "N passed, N failed, N skipped".
#
#   scripts/test.sh          the CI tier: every test, with a spread sample of
#                            each strategy's search space (two points) and
#                            the candidate corpus compiled for sm_90
#   scripts/test.sh --full   the same tests over every search point and the
#                            three architectures (about 1.7 times as long)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${FS_BUILD_DIR:-$root/build}
target=check
case ${1:-} in
  "") ;;
  --full) target=check-full ;;
  -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
  *) echo "test.sh: unknown argument '$1' (--full or nothing)" >&2; exit 2 ;;
esac
"$root/scripts/setup.sh"
cmake --build "$build" --target "$target"
