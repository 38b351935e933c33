#!/usr/bin/env bash
# run-in-dir.sh PROGRAM ARGS... --fs-out DIR
#
# Runs AWP-ODC's PROGRAM (beside this script) with DIR as its working
# directory and the build directory's input/ linked into it. pmcl3d keeps its
# file names in 40- and 50-character buffers (mesh.c, pmcl3d.c), too short for
# the harness's output directory, so every path it is given is short and
# relative: input/mesh, input/source, the surface output ./SX0000300 and the
# checkpoint statistics ckp. The link is removed afterwards, so DIR holds only
# what the run wrote. Part of the run recipe in apps/awp-odc/app.json.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=""
args=()
while [ $# -gt 0 ]; do
  if [ "$1" = --fs-out ] && [ $# -ge 2 ]; then
    out=$2
    shift 2
  else
    args+=("$1")
    shift
  fi
done
[ -n "$out" ] && [ -d "$out" ] || { echo "run-in-dir.sh: --fs-out DIR (an existing directory) is missing" >&2; exit 2; }
[ ${#args[@]} -gt 0 ] || { echo "run-in-dir.sh: no program given" >&2; exit 2; }
ln -sfn "$here/input" "$out/input" || exit 2
(cd "$out" && "$here/${args[0]}" "${args[@]:1}")
status=$?
rm -f "$out/input"
exit $status
