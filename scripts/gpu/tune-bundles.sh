#!/usr/bin/env bash
# tune-bundles.sh [--kernels-of APP=K1,K2]... BUNDLE...
#
# On a GPU host without LLVM: builds the LLVM-free fs-tune into build-gpu/
# (headers from .carry/include, scripts/gpu/carry-headers.sh) and runs it on
# each tuning bundle that fs-rewrite --bundle wrote elsewhere, one after the
# other, writing <out>/<bundle name>.json (the results fs-rewrite
# --tuning-results reads back) and <out>/<bundle name>.log, then one table
# line per kernel: candidates verified, the winner and its speed-up over the
# original. <out> is $OUT, else results/tune/<UTC date>-bundles. With
# FS_TAR=1 the per-bundle files go into <out>/bundles.tar.gz instead (a host
# that returns few files).
#
#   --kernels-of APP=K1,K2   tune only these kernels of the bundle named APP
#   --arch-of APP=sm_80      build APP's drivers for this architecture (an app
#                            whose headers refuse others, built by its own
#                            build for it and run on newer GPUs through PTX)
# Units that include <mpi.h> find the headers of the MPI that
# scripts/gpu/mpi-env.sh provides (from .carry/mpi where none is installed).
#   FS_TUNE_ARGS             further fs-tune options (e.g. "--budget 4")
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
declare -A only=() arch=()
bundles=()
while [ $# -gt 0 ]; do
  case $1 in
  --kernels-of) only[${2%%=*}]=${2#*=}; shift 2 ;;
  --arch-of) arch[${2%%=*}]=${2#*=}; shift 2 ;;
  -h | --help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  -*) echo "tune-bundles: unknown option $1" >&2; exit 2 ;;
  *) bundles+=("$1"); shift ;;
  esac
done
[ ${#bundles[@]} -gt 0 ] || { echo "tune-bundles: no bundle given" >&2; exit 2; }
out=${OUT:-$root/results/tune/$(date -u +%Y-%m-%d)-bundles}
mkdir -p "$out"
final=$out
if [ "${FS_TAR:-0}" = 1 ]; then
  out=$(mktemp -d)
fi
build=${FS_BUILD_DIR:-$root/build-gpu}
{
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFS_ENABLE_LLVM=OFF \
    -DFS_PARTS= -DFS_ENABLE_TESTS=OFF -DFS_EXTRA_INCLUDE_DIR="$root/.carry/include" &&
    ninja -C "$build" fs-tune
} > "$final/build.log" 2>&1 || { tail -30 "$final/build.log" >&2; exit 1; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader \
  > "$final/gpu.txt" 2>&1
# shellcheck source=mpi-env.sh
if source "$root/scripts/gpu/mpi-env.sh" > "$final/mpi.log" 2>&1 && command -v mpicxx >/dev/null; then
  inc=$(mpicxx --showme:incdirs 2>/dev/null | tr ' ' ':')
  [ -n "$inc" ] && export CPATH=$inc${CPATH:+:$CPATH}
fi
status=0
for b in "${bundles[@]}"; do
  name=$(basename "$b")
  args=()
  if [ -n "${only[$name]:-}" ]; then
    IFS=, read -ra ks <<< "${only[$name]}"
    args+=(--kernels "${ks[@]}")
  fi
  [ -n "${arch[$name]:-}" ] && args+=(--arch "${arch[$name]}")
  start=$(date +%s)
  # shellcheck disable=SC2086
  "$build/bin/fs-tune" "$b" --out "$out/$name.json" "${args[@]}" ${FS_TUNE_ARGS:-} \
    > "$out/$name.log" 2>&1
  rc=$?
  echo "$name: fs-tune exit $rc in $(( $(date +%s) - start )) s" >> "$out/summary.txt"
  [ $rc -eq 0 ] || status=1
done
# One line per kernel from the results files.
python3 - "$out" "${bundles[@]}" <<'EOF' | tee -a "$out/summary.txt"
import json, os, sys
out = sys.argv[1]
for b in sys.argv[2:]:
    name = os.path.basename(b.rstrip("/"))
    path = os.path.join(out, name + ".json")
    try:
        res = json.load(open(path))
    except (OSError, ValueError) as e:
        print(f"{name}: no results ({e.__class__.__name__})")
        continue
    by = {}
    for c in res.get("candidates", []):
        by.setdefault(c.get("kernel", "?"), []).append(c)
    for kernel, cands in sorted(by.items()):
        ok = [c for c in cands if c.get("verdict") in ("bitexact", "tolerance")]
        best = max(ok, key=lambda c: c.get("speedup") or 0, default=None)
        verdicts = ",".join(sorted({str(c.get("verdict")) for c in cands}))
        line = f"{name:16s} {kernel:34s} verified {len(ok)}/{len(cands)} ({verdicts})"
        if best:
            line += (f"  best {best['id']} {best.get('speedup', 0):.3f}x"
                     f" original {best.get('original_ms', 0):.4f} ms")
        print(line)
EOF
if [ "$out" != "$final" ]; then
  cp "$out/summary.txt" "$final/summary.txt"
  tar -C "$out" -czf "$final/bundles.tar.gz" .
fi
exit $status
