#!/usr/bin/env bash
# apps-e2e.sh [--rounds N] [--small] [--build-only | --no-build] [--jobs J] [app...]
#
# The third-party apps end to end on a GPU host, with no network: builds the
# LLVM-free fs-harness, vendors every app (default: each apps/*/app.json
# with a git source) from .carry/apps (scripts/gpu/carry-apps.sh) with its
# patches, builds them all (J at a time, default 4), then measures each with
# fs-harness, N round pairs (default 5), USE_OURS=0/1 interleaved, every
# build variant, and prints one table last. The MPI apps get Debian's Open
# MPI from .carry/mpi when the host has none (scripts/gpu/mpi-env.sh).
#
# A session may split it: --build-only first, then --no-build with some apps
# per call (the builds stay in build-gpu/work); the table then covers every
# app measured into the same <out>.
#
# Records: <out>/<app>-runs.json (every run), <out>/<app>-harness.log,
# <out>/<app>-build.log, <out>/table.txt, <out>/gpu.txt, and the registry
# entries in results/integration_registry.json (copied to <out>), where
# <out> is $OUT, else results/apps-e2e/<UTC date>.
#
# What to carry (prepared where apt and the mirrors are):
#   scripts/gpu/carry-headers.sh && scripts/gpu/carry-mpi.sh &&
#   FS_MIRROR=<mirrors> scripts/gpu/carry-apps.sh      # all into .carry/
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
rounds=5 small=() mode=all jobs=4 apps=()
while [ $# -gt 0 ]; do
  case $1 in
  --rounds) rounds=$2; shift 2 ;;
  --small) small=(--small); shift ;;
  --build-only) mode=build; shift ;;
  --no-build) mode=measure; shift ;;
  --jobs) jobs=$2; shift 2 ;;
  -h | --help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  -*) echo "apps-e2e: unknown option $1" >&2; exit 2 ;;
  *) apps+=("$1"); shift ;;
  esac
done
if [ ${#apps[@]} -eq 0 ]; then
  mapfile -t apps < <(python3 - "$root/apps" <<'PY'
import glob, json, os, sys
for p in sorted(glob.glob(os.path.join(sys.argv[1], "*", "app.json"))):
    if json.load(open(p)).get("source", {}).get("kind") == "git":
        print(os.path.basename(os.path.dirname(p)))
PY
)
fi
out=${OUT:-$root/results/apps-e2e/$(date -u +%Y-%m-%d)}
mkdir -p "$out"
build=${FS_BUILD_DIR:-$root/build-gpu}
work=${FS_WORK_DIR:-$build/work}
log() { echo "apps-e2e: $*" >&2; }

# nvcc for the app builds, and their sources (.carry/apps unless FS_MIRROR).
# shellcheck source=app-sources-env.sh
source "$root/scripts/gpu/app-sources-env.sh" "$root"
log "sources from ${FS_MIRROR:-the upstream urls (no FS_MIRROR, no .carry/apps)}"
# MPI for the apps that need one; the others do not care when it is missing.
# shellcheck source=mpi-env.sh
source "$root/scripts/gpu/mpi-env.sh" "$build/mpi" || log "no MPI: heat-2d, heat-3d and awp-odc will not build"

extra=()
[ -d "$root/.carry/include" ] && extra=(-DFS_EXTRA_INCLUDE_DIR="$root/.carry/include")
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFS_PARTS=Harness \
  -DFS_ENABLE_LLVM=OFF -DFS_ENABLE_TESTS=OFF "${extra[@]}" >"$out/cmake.log" 2>&1 &&
  cmake --build "$build" --target fs-harness >>"$out/cmake.log" 2>&1 ||
  { tail -20 "$out/cmake.log" >&2; log "cannot build fs-harness"; exit 2; }
harness=$build/bin/fs-harness

# --- build every app, J at a time ------------------------------------------
declare -A built
if [ "$mode" != measure ]; then
  cores=$(nproc)
  export MAKEFLAGS="-j$(((cores + jobs - 1) / jobs))"
  export CMAKE_BUILD_PARALLEL_LEVEL=$(((cores + jobs - 1) / jobs))
  start=$(date +%s)
  for app in "${apps[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    log "building $app"
    ( "$harness" --app "$app" --root "$root" --work-dir "$work/$app" --build-only \
        --build-timeout 1800 >"$out/$app-build.log" 2>&1
      echo $? >"$out/$app-build.status" ) &
  done
  wait
  for app in "${apps[@]}"; do
    s=$(cat "$out/$app-build.status" 2>/dev/null || echo 2)
    built[$app]=$s
    [ "$s" = 0 ] || { log "$app: build failed (exit $s):"; tail -15 "$out/$app-build.log" >&2; }
  done
  log "builds done in $(($(date +%s) - start)) s"
fi
[ "$mode" = build ] && exit 0

# --- measure each app ------------------------------------------------------
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total --format=csv \
  >"$out/gpu.txt" 2>&1 || true
status=0
for app in "${apps[@]}"; do
  if [ "${built[$app]:-0}" != 0 ]; then status=1; continue; fi
  log "measuring $app ($rounds rounds)"
  start=$(date +%s)
  "$harness" --app "$app" --root "$root" --work-dir "$work/$app" --no-build \
    --rounds "$rounds" "${small[@]}" --run-timeout 300 --json "$out/$app-runs.json" \
    >"$out/$app-harness.log" 2>&1 || status=1
  grep -E '^(fs-harness: |  |REFUSED)' "$out/$app-harness.log" | grep -v '^fs-harness: \[' >&2 || true
  log "$app took $(($(date +%s) - start)) s"
done
cp "$root/results/integration_registry.json" "$out/" 2>/dev/null || true

# --- the table -------------------------------------------------------------
python3 - "$out" "${apps[@]}" <<'PY' | tee "$out/table.txt"
import json, os, sys
out, apps = sys.argv[1], sys.argv[2:]
# Also the apps measured into the same directory by earlier calls (a session
# split into several commands), so the last table covers all of them.
for name in sorted(os.listdir(out)):
    if name.endswith("-runs.json") and name[:-len("-runs.json")] not in apps:
        apps.append(name[:-len("-runs.json")])
rows = [("app", "variant", "status", "t0 ms", "t1 ms", "speed-up", "95% CI", "check", "output")]
for app in apps:
    path = os.path.join(out, app + "-runs.json")
    if not os.path.exists(path):
        built = open(os.path.join(out, app + "-build.status")).read().strip() if os.path.exists(os.path.join(out, app + "-build.status")) else "?"
        rows.append((app, "-", "not built" if built not in ("0", "?") else "not run", "", "", "", "", "", ""))
        continue
    doc = json.load(open(path))
    for r in doc.get("variants", [doc]):
        m, s = r.get("modes", {}), r.get("speedup", {})
        o = r.get("output")
        rows.append((app, r.get("variant", "-"), r["status"],
                     "%.1f" % m["0"]["median_ms"] if m else "",
                     "%.1f" % m["1"]["median_ms"] if m else "",
                     "%.3fx" % s["median"] if "median" in s else "",
                     "[%.3f, %.3f]" % tuple(s["ci95"]) if "ci95" in s else "",
                     r["check"],
                     ("identical" if o["identical"] else "max rel %.2g" % o["max_rel_diff"]) if o else "-"))
widths = [max(len(str(row[i])) for row in rows) for i in range(len(rows[0]))]
for row in rows:
    print("  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip())
PY
exit $status
