#!/bin/bash
# Builds fs-bench on a GPU host (CUDA + CMake + a C++ compiler, headers from
# scripts/gpu/carry-headers.sh in .carry/include) and measures every target
# stencil with every strategy variant. Details go to $OUT (default
# ./bench-out); a short table is printed last.
#
#   scripts/gpu/bench-all.sh [target...]     (default: all targets below)
#
# FS_STRATEGY (default all) is fs-bench's --strategy for every target;
# FS_STRATEGY_<target> (e.g. FS_STRATEGY_box3d_r1=zsum.32x4.v1.y4.z8,...)
# overrides it for one. FS_REPS: timed repetitions (default 40).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
OUT=${OUT:-$root/bench-out}
mkdir -p "$OUT"
work=${FS_BENCH_WORK:-/tmp/fs-bench-work}
mkdir -p "$work"
log="$OUT/bench-all.log"
: > "$log"

bench=$("$root/scripts/gpu/build-fs-bench.sh" "$log") || exit 1

# name stencil dtype shape
targets=(
  "star2d_r1 star2d_r1 f32 8192"
  "box2d_r1 box2d_r1 f32 8192"
  "star3d_r1_f64 star3d_r1 f64 512"
  "box3d_r1 box3d_r1 f32 512"
  "rtm rtm f32 512"
  "fdtd_e fdtd_e f32 512"
  "fdtd_h fdtd_h f32 512"
  "hotspot2d hotspot2d f32 8192"
)
if [ $# -gt 0 ]; then
  selected=()
  for t in "${targets[@]}"; do
    for want in "$@"; do [ "${t%% *}" = "$want" ] && selected+=("$t"); done
  done
  targets=("${selected[@]}")
fi
strategy=${FS_STRATEGY:-all}
reps=${FS_REPS:-40}

"$root/scripts/gpu/host-info.sh" > "$OUT/host.txt" 2>&1
cores=$(nproc)
jobs=$(( cores / ${#targets[@]} )); [ $jobs -lt 2 ] && jobs=2
# Compile all targets at once (CPU), then time them one after another (GPU).
strategy_for() { local v="FS_STRATEGY_$1"; echo "${!v:-$strategy}"; }
for t in "${targets[@]}"; do
  read -r name stencil dtype shape <<<"$t"
  "$bench" --stencil "$stencil" --dtype "$dtype" --shape "$shape" \
    --strategy "$(strategy_for "$name")" --work-dir "$work/$name" --build-only \
    --jobs $jobs >>"$log" 2>&1 &
done
wait
for t in "${targets[@]}"; do
  read -r name stencil dtype shape <<<"$t"
  st=$(strategy_for "$name")
  cmd="fs-bench --stencil $stencil --dtype $dtype --shape $shape --strategy $st --reps $reps"
  echo "\$ $cmd" >> "$OUT/tables.txt"
  "$bench" --stencil "$stencil" --dtype "$dtype" --shape "$shape" \
    --strategy "$st" --reps "$reps" --work-dir "$work/$name" \
    --run-only --json-out "$work/$name.json" \
    --record "$OUT/operator-matrix.json" >>"$OUT/tables.txt" 2>>"$log"
  echo "rc=$?" >> "$OUT/tables.txt"
done
# Everything in few files (only a handful come back from a lent machine).
python3 - "$work" "$OUT" "${targets[@]}" <<'PY'
import json, sys, os
work, out, targets = sys.argv[1], sys.argv[2], sys.argv[3:]
allres, rows = {}, []
for t in targets:
    name = t.split()[0]
    try:
        res = json.load(open(os.path.join(work, name + ".json")))[0]
    except Exception as e:
        rows.append((name, "no result", "", "", "", "", ""))
        continue
    allres[name] = res
    r = {x["variant"]: x for x in res["rows"]}
    cands = [x for x in res["rows"]
             if x["variant"] not in ("copy", "original", "footprint")
             and x["verdict"] in ("bitexact", "tolerance")]
    best = min(cands, key=lambda x: x["median_ms"]) if cands else None
    fails = [x["variant"] for x in res["rows"] if x["verdict"] == "FAIL"]
    o = r.get("original", {})
    fp = r.get("footprint")
    rows.append((name, f'{r["copy"]["effective_gbps"]:.0f}',
                 f'{fp["fraction_of_copy"]*100:.1f}' if fp else "-",
                 f'{o.get("fraction_of_copy", 0)*100:.1f}',
                 best["variant"] if best else "-",
                 f'{best["effective_gbps"]:.0f}' if best else "-",
                 f'{best["fraction_of_copy"]*100:.1f}' if best else "-",
                 f'{best.get("fraction_of_footprint", 0)*100:.1f}' if best else "-",
                 f'{best["speedup_vs_original"]:.2f}' if best else "-",
                 str(len(fails))))
json.dump(allres, open(os.path.join(out, "results.json"), "w"), indent=1)
# fp: the footprint kernel's % of copy; %fp: the best's % of the footprint
# kernel (fs-bench's columns).
fmt = "%-14s %6s %5s %6s  %-36s %6s %6s %5s %6s %5s"
print("\n" + fmt % ("target", "copyGB", "fp", "orig%", "best variant", "GB/s",
                    "%copy", "%fp", "xorig", "FAIL"))
for row in rows:
    print(fmt % (row + ("",) * (10 - len(row))))
PY
tar czf "$OUT/work-logs.tar.gz" -C "$work" --exclude='*.o' --exclude=bench . 2>/dev/null
