#!/bin/bash
# A/B trial of source edits on generated candidates, before a knob is worth
# adding to a generator. On a GPU host (CUDA, CMake, a C++ compiler, headers
# from scripts/gpu/carry-headers.sh in .carry/include):
#
#   scripts/gpu/ab-edit.sh STENCIL SHAPE IDS [EDIT...]
#
# builds fs-bench's bench for the named stencil (or an IR file, if STENCIL
# ends in .json), the shape and the comma-separated strategy ids once as
# generated ("base") and once per EDIT, where an EDIT is NAME=PERL: a perl
# substitution applied (perl -0pi -e) to every candidate source before it is
# compiled. Then it runs every build FS_ROUNDS times (default 3), the builds
# in turn within a round (A B C A B C ...), and prints one line per build and
# candidate: the median over the rounds of % of copy (each run's own copy
# kernel) and every run's figure. $OUT gets few files: host.txt, the log,
# tables.txt (fs-bench's tables), summary.txt (the lines above), runs.json
# (every run's result) and the first candidate of each edited build.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
OUT=${OUT:-$root/ab-out}
mkdir -p "$OUT"
[ $# -ge 3 ] || { sed -n '2,16p' "$0"; exit 2; }
stencil=$1 shape=$2 ids=$3
shift 3
rounds=${FS_ROUNDS:-3}
reps=${FS_REPS:-30}
work=${FS_BENCH_WORK:-/tmp/fs-ab-work}
rm -rf "$work"
mkdir -p "$work"
log="$OUT/ab-edit.log"
: >"$log"
# Always through ninja: a build left by an earlier call may predate the
# generator being tried.
bench=$("$root/scripts/gpu/build-fs-bench.sh" "$log") || exit 1
if [[ $stencil == *.json ]]; then
  what=(--stencil-file "$stencil")
else
  what=(--stencil "$stencil")
fi
"$root/scripts/gpu/host-info.sh" >"$OUT/host.txt" 2>&1

names=(base)
"$bench" "${what[@]}" --shape "$shape" --strategy "$ids" \
  --work-dir "$work/base" --build-only --jobs "$(nproc)" >>"$log" 2>&1 ||
  { tail -30 "$log"; exit 1; }
for edit in "$@"; do
  name=${edit%%=*} expr=${edit#*=}
  names+=("$name")
  cp -r "$work/base" "$work/$name"
  for f in "$work/$name"/cand_*.cu; do
    perl -0pi -e "$expr" "$f"
    cmp -s "$f" "$work/base/$(basename "$f")" &&
      echo "edit $name changed nothing in $(basename "$f")" | tee -a "$log"
  done
  cp "$work/$name"/cand_0.cu "$OUT/$name.cand_0.cu"
  (cd "$work/$name" && sh build.sh nvcc "${FS_ARCH:-90}") >>"$log" 2>&1 ||
    { echo "edit $name does not compile:"; tail -30 "$log"; exit 1; }
done

for r in $(seq 1 "$rounds"); do
  for name in "${names[@]}"; do
    "$bench" "${what[@]}" --shape "$shape" --strategy "$ids" --reps "$reps" \
      --work-dir "$work/$name" --run-only \
      --json-out "$work/$name.round$r.json" >>"$OUT/tables.txt" 2>>"$log"
    echo "rc=$? ($name, round $r)" >>"$OUT/tables.txt"
  done
done

python3 - "$work" "$OUT" "$rounds" "${names[@]}" <<'PY' | tee "$OUT/summary.txt"
import json, os, statistics, sys
work, out, rounds, names = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
everything = {}
print("%-10s %-40s %7s  %s" % ("build", "variant", "%copy", "per round"))
for name in names:
    runs = {}
    for r in range(1, rounds + 1):
        try:
            res = json.load(open(os.path.join(work, "%s.round%d.json" % (name, r))))[0]
        except Exception:
            continue
        everything["%s.round%d" % (name, r)] = res
        for row in res["rows"]:
            if row["variant"] == "copy":
                continue
            runs.setdefault(row["variant"], []).append(
                (row["fraction_of_copy"] * 100, row["verdict"]))
    for variant, xs in runs.items():
        fig = [x for x, _ in xs]
        verdicts = sorted(set(v for _, v in xs))
        print("%-10s %-40s %7.1f  %s  %s" % (
            name, variant, statistics.median(fig),
            " ".join("%.1f" % x for x in fig), ",".join(verdicts)))
json.dump(everything, open(os.path.join(out, "runs.json"), "w"), indent=1)
PY
