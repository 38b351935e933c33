#!/usr/bin/env bash
# Makes the tuning bundle that scripts/gpu/llm-loop.sh runs the LLM loop on,
# where fs-rewrite (LLVM) is: the small heat app of test/Tune/Inputs/heat
# (a 7-point star with __constant__ coefficients), with one built-in
# candidate, the model's one-shot example, in .carry/bundles/heat. Carry
# .carry to the GPU host (scripts/gpu/carry-headers.sh fills its include/).
#
#   scripts/gpu/make-llm-bundles.sh [path/to/fs-rewrite]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
fs_rewrite=${1:-${FS_REWRITE:-$root/build/bin/fs-rewrite}}
if [ ! -x "$fs_rewrite" ]; then
  echo "make-llm-bundles: no fs-rewrite at $fs_rewrite (build it, or name it)" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The app's compile database names its own directory: a copy of the sources
# with the placeholder filled in.
cp -r "$root/test/Tune/Inputs/heat" "$work/heat"
sed -e "s|@DIR@|$work/heat|g" "$root/test/Tune/Inputs/heat/cc.json" \
  > "$work/heat/compile_commands.json"
bundle="$root/.carry/bundles/heat"
rm -rf "$bundle"
mkdir -p "$(dirname "$bundle")"
"$fs_rewrite" --app heat --bundle "$bundle" --bundle-budget 1 \
  "$work/heat/compile_commands.json"
