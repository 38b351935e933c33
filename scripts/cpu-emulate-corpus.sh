#!/usr/bin/env bash
# Every generated candidate of the IR corpus through the CPU emulation with
# bounds-checked memory (utils/cpu-emulate.py: each device array between
# faulting guard regions, everything built with AddressSanitizer), so that
# no candidate reaches a GPU, or a patch, with an access outside its arrays
# or a wrong point. No GPU needed.
#
# The corpus:
#   named   every named stencil of fs-bench --list, in float and in double;
#   devset  the dev set's recognised stencil kernels, from the newest
#           results/realapps/<run>/<dir>/ir.json (fs-rewrite --dump-ir of
#           third-party code; the sources are not needed);
#   tests   the kernels of the apps under test/Tune/Inputs (fs-rewrite
#           --dump-ir, where fs-rewrite is built).
# Per IR: every strategy's whole search space (fs-bench --strategy all) and
# the knowledge base's pick for it (--strategy best), emitted with
# fs-bench --emit-dir and emulated at the small size fs-bench derives for
# the original.
#
#   scripts/cpu-emulate-corpus.sh [--sample] [--out DIR] [--jobs N]
#       [--build DIR] [--only REGEX] [--per-strategy N]
#
# --sample runs a fixed few IRs (CI: test/Forge/cpu-emulate-corpus.test);
# --per-strategy N takes N points of each search space, spread over it
# (fs-bench --per-strategy), instead of all of them;
# --out defaults to results/cpu-emulate/<date>-<commit> (the whole corpus)
# or a temporary directory (--sample); --only keeps the IRs whose name
# matches. Writes there: summary.txt (the command, date, commit, host, one
# row per IR, every failure with its reason, a total line), results.tsv (IR,
# candidate, PASS or FAIL, reason) and logs/<ir>.log. Exit status 0 when
# every candidate passed, 1 when one failed, 2 when an IR could not be
# emitted or emulated.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
sample=0
out=
jobs=2
build=${FS_BUILD_DIR:-$root/build}
only=
per_strategy=()
cmdline="scripts/cpu-emulate-corpus.sh $*"
while [ $# -gt 0 ]; do
  case $1 in
    --sample) sample=1 ;;
    --out) out=$2; shift ;;
    --jobs) jobs=$2; shift ;;
    --build) build=$2; shift ;;
    --only) only=$2; shift ;;
    --per-strategy) per_strategy=(--per-strategy "$2"); shift ;;
    -h|--help) sed -n '2,35p' "$0"; exit 0 ;;
    *) echo "cpu-emulate-corpus: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
fs_bench=$build/bin/fs-bench
fs_rewrite=$build/bin/fs-rewrite
if [ ! -x "$fs_bench" ]; then
  echo "cpu-emulate-corpus: no fs-bench at $fs_bench (build it, or give --build)" >&2
  exit 2
fi
date=$(date -u +%Y-%m-%d)
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -z "$out" ]; then
  if [ $sample = 1 ]; then
    out=$(mktemp -d "${TMPDIR:-/tmp}/fs-emu-corpus-XXXXXX")
  else
    out=$root/results/cpu-emulate/$date-$commit
  fi
fi
mkdir -p "$out/logs"
work=$(mktemp -d "${TMPDIR:-/tmp}/fs-emu-work-XXXXXX")
trap 'rm -rf "$work"' EXIT
irs=$work/irs
mkdir -p "$irs"

# The corpus, one IR file per name.
if [ $sample = 1 ]; then
  "$fs_bench" --stencil star2d_r1 --dump-ir > "$irs/named-star2d_r1-f32.json"
  "$fs_bench" --stencil hotspot2d --dtype f64 --dump-ir > "$irs/named-hotspot2d-f64.json"
else
  for s in $("$fs_bench" --list | grep -v '^strategy '); do
    for t in f32 f64; do
      "$fs_bench" --stencil "$s" --dtype $t --dump-ir > "$irs/named-$s-$t.json"
    done
  done
fi
# The dev set's recognised kernels (the sample takes one).
# The newest run is the one of the latest commit (several runs share a
# date, and their names sort by commit hash, not by time).
realapps= best=-1
for d in "$root"/results/realapps/*/; do
  [ -d "$d" ] || continue
  c=$(basename "$d"); c=${c##*-}
  n=$(git -C "$root" rev-list --count "$c" 2>/dev/null) || continue
  if [ "$n" -gt "$best" ]; then best=$n; realapps=$d; fi
done
# Without the history (a shallow clone): the last by name.
[ -n "$realapps" ] || realapps=$(ls -d "$root"/results/realapps/*/ 2>/dev/null | sort | tail -1)
if [ -n "$realapps" ]; then
  python3 - "$realapps" "$irs" "$sample" <<'EOF'
import json, os, re, sys
run, irs, sample = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
n = 0
for d in sorted(os.listdir(run)):
    p = os.path.join(run, d, "ir.json")
    if not os.path.isfile(p):
        continue
    for k in json.load(open(p)).get("kernels", []):
        if k.get("verdict") != "stencil" or not k.get("ir"):
            continue
        if sample and not (d == "heat-2d"):
            continue
        name = re.sub(r"[^A-Za-z0-9_.-]", "_", "devset-%s-%s" % (d, k["kernel"]))
        with open(os.path.join(irs, name + ".json"), "w") as f:
            json.dump(k["ir"], f)
        n += 1
EOF
fi
# The test apps' kernels, where fs-rewrite is built.
if [ $sample = 0 ] && [ -x "$fs_rewrite" ]; then
  for app in "$root"/test/Tune/Inputs/*/; do
    name=$(basename "$app")
    [ -f "$app/cc.json" ] || continue
    cp -r "$app" "$work/app-$name"
    sed -e "s|@DIR@|$work/app-$name|g" "$app/cc.json" > "$work/app-$name/compile_commands.json"
    "$fs_rewrite" --dump-ir "$work/app-$name/ir.json" "$work/app-$name/compile_commands.json" \
      > /dev/null 2>> "$out/logs/dump-ir.log" || continue
    python3 - "$work/app-$name/ir.json" "$irs" "$name" <<'EOF'
import json, os, re, sys
for k in json.load(open(sys.argv[1])).get("kernels", []):
    if k.get("verdict") != "stencil" or not k.get("ir"):
        continue
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", "tests-%s-%s" % (sys.argv[3], k["kernel"]))
    with open(os.path.join(sys.argv[2], name + ".json"), "w") as f:
        json.dump(k["ir"], f)
EOF
  done
fi

{
  echo "# CPU emulation of every generated candidate, bounds-checked"
  echo "command: $cmdline"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $commit"
  echo "host: $(uname -srm), $(nproc) cores, $(${CXX:-g++} --version | head -1)"
  echo
  printf '%-52s %6s %6s %6s %7s\n' ir cands passed failed seconds
} > "$out/summary.txt"
: > "$out/results.tsv"
status=0
total=0; passed=0; failed=0; broken=0; considered=0
for ir in "$irs"/*.json; do
  name=$(basename "$ir" .json)
  if [ -n "$only" ] && ! [[ $name =~ $only ]]; then continue; fi
  considered=$((considered + 1))
  log=$out/logs/$name.log
  dir=$work/$name
  start=$(date +%s)
  strategies=all
  # The knowledge base's pick too, where it is not in a search space.
  best=$("$fs_bench" --stencil-file "$ir" --strategy best --emit-dir "$dir/best" 2>&1 |
         sed -n 's/^fs-bench: best known ([^)]*): //p' | head -1)
  [ -n "$best" ] && strategies="all,$best"
  if ! "$fs_bench" --stencil-file "$ir" --strategy "$strategies" "${per_strategy[@]}" \
       --emit-dir "$dir/bench" \
       > "$log" 2>&1; then
    printf '%-52s %6s %6s %6s %7s  cannot emit (see logs/%s.log)\n' "$name" - - - - "$name" \
      >> "$out/summary.txt"
    broken=$((broken + 1)); status=2
    continue
  fi
  python3 "$root/utils/cpu-emulate.py" "$dir/bench" --jobs "$jobs" \
    --work-dir "$dir/emu" >> "$log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - start ))
  p=$(grep -c '^PASS ' "$log"); f=$(grep -c '^FAIL ' "$log")
  grep -E '^(PASS|FAIL) ' "$log" | sed -E "s/^(PASS|FAIL) ([^ :]+):? ?(.*)$/$name\t\2\t\1\t\3/" \
    >> "$out/results.tsv"
  note=
  if [ $rc -ge 2 ]; then
    note="  emulation error: $(grep 'cpu-emulate: error' "$log" | head -1 | cut -c1-160)"
    broken=$((broken + 1)); status=2
  elif [ $rc = 1 ] && [ $status = 0 ]; then
    status=1
  fi
  printf '%-52s %6d %6d %6d %7d%s\n' "$name" $((p + f)) "$p" "$f" "$secs" "$note" >> "$out/summary.txt"
  total=$((total + p + f)); passed=$((passed + p)); failed=$((failed + f))
  rm -rf "$dir"
done
{
  if [ $failed -gt 0 ]; then
    echo
    echo "failures:"
    awk -F'\t' '$3 == "FAIL" { print "  " $1 " " $2 ": " $4 }' "$out/results.tsv"
  fi
  echo
  echo "total: $considered IRs${only:+ matching --only}, $total candidates: $passed passed, $failed failed; $broken IRs not emulated"
} >> "$out/summary.txt"
cat "$out/summary.txt"
exit $status
