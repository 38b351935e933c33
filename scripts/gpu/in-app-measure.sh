#!/usr/bin/env bash
# in-app-measure.sh <app> <measuring patch> [fs-harness option...]
#
# The USE_OURS=verify run of a measuring patch on a GPU host: an
# `fs-rewrite --in-app K` patch (docs/in-app-candidates.md), or one whose
# body copies are timed in the app (`--reblock K` without a shape,
# `--register-cap K` without a cap; docs/body-copies.md). Vendors <app> with its hand-written
# patches/<app>/0000-*.patch, if any, and the measuring patch in place of its
# other patches, builds it and runs fs-harness once with one round pair: the
# verify run, which compares every candidate with the original in the app
# and times both, comes first. The record goes to <out>/<app>-in-app.json,
# the log to <out>/<app>-in-app.log, where <out> is $OUT, else
# results/apps-e2e/<UTC date>-in-app. No registry entry is written: such a
# patch measures candidates, it is no chosen variant the registry keeps.
# Then, where fs-rewrite is:
#
#   fs-rewrite --app <app> --in-app K --in-app-times <out>/<app>-in-app.json --emit-patch ...
#   fs-rewrite --app <app> --register-cap K --reblock-times <out>/<app>-in-app.json --emit-patch ...
#
# Needs what scripts/gpu/apps-e2e.sh needs (.carry/apps, .carry/mpi for the
# MPI apps, .carry/include where the host lacks the headers).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
[ $# -ge 2 ] || { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
app=$1 patch=$(realpath "$2")
shift 2
[ -f "$root/apps/$app/app.json" ] || { echo "in-app-measure: no apps/$app/app.json" >&2; exit 2; }
[ -f "$patch" ] || { echo "in-app-measure: no patch $patch" >&2; exit 2; }
grep -q -e "in-app candidate" -e "timed under USE_OURS=verify" "$patch" ||
  { echo "in-app-measure: $patch holds no in-app candidates (fs-rewrite --in-app) and no body copies timed under USE_OURS=verify" >&2; exit 2; }
out=${OUT:-$root/results/apps-e2e/$(date -u +%Y-%m-%d)-in-app}
build=${FS_BUILD_DIR:-$root/build-gpu}
work=${FS_WORK_DIR:-$build/work-in-app}/$app
mkdir -p "$out"
log() { echo "in-app-measure: $*" >&2; }

# shellcheck source=app-sources-env.sh
source "$root/scripts/gpu/app-sources-env.sh" "$root"
# shellcheck source=mpi-env.sh
source "$root/scripts/gpu/mpi-env.sh" "$build/mpi" || log "no MPI: apps that need one will not build"

harness=$build/bin/fs-harness
if [ ! -x "$harness" ]; then
  extra=()
  [ -d "$root/.carry/include" ] && extra=(-DFS_EXTRA_INCLUDE_DIR="$root/.carry/include")
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFS_PARTS=Harness \
    -DFS_ENABLE_LLVM=OFF -DFS_ENABLE_TESTS=OFF "${extra[@]}" >"$out/cmake.log" 2>&1 &&
    cmake --build "$build" --target fs-harness >>"$out/cmake.log" 2>&1 ||
    { tail -20 "$out/cmake.log" >&2; log "cannot build fs-harness"; exit 2; }
fi

# The app's build fix, then the measuring patch.
patches=$(mktemp -d)
trap 'rm -rf "$patches"' EXIT
for p in "$root/patches/$app"/0000-*.patch; do
  [ -f "$p" ] && cp "$p" "$patches/"
done
cp "$patch" "$patches/0001-measuring.patch"
rm -rf "$work"
"$harness" --app "$app" --root "$root" --patches-dir "$patches" --work-dir "$work" \
  --rounds 1 --no-registry --run-timeout 600 --json "$out/$app-in-app.json" "$@" \
  >"$out/$app-in-app.log" 2>&1
status=$?
grep -E '^fs-harness: USE_OURS=verify' "$out/$app-in-app.log" >&2 || tail -20 "$out/$app-in-app.log" >&2
[ -f "$out/$app-in-app.json" ] || { log "no record (exit $status)"; exit 1; }
log "record: $out/$app-in-app.json (fs-harness exit $status)"
exit 0
