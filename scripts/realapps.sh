#!/usr/bin/env bash
# Runs fs-rewrite over the extracted third-party dev set (../shared/devset, made by
# its extract.sh) and scores its analysis against test/RealApps/labels.json.
#
#   scripts/realapps.sh [--fs-rewrite PATH] [--devset DIR] [--out DIR]
#                       [--commit HASH] [--labels FILE] [--no-score] [dir...]
#
# For every dir (default: every subdirectory of the dev set with a
# compile_commands.json) it runs, from the dir,
#   fs-rewrite --list --json --dump-ir=ir.json --source-root=<dir> compile_commands.json
# (one parse gives both documents), keeps the exit status, and prints one row per
# translation unit of the dir's compile database: status, kernels, launches and the
# verdicts of its kernels; then a summary line, then utils/score-realapps.py.
# A TU's status comes from the "translation_units" member of the --list JSON when the
# tool writes one, and otherwise from "parse_failures" (a TU with a failure on either
# side is "failed", with its first error).
#
# Everything lands in OUT/<date>-<commit>/ (default OUT results/realapps/, <commit> the
# short HEAD of this repository or --commit): per dir list.json and ir.json (the tool's
# documents, re-written without indentation), stderr.txt, rc and seconds; at the top
# summary.txt (the printed text), run.json (the rows) and score.json.
#
# Defaults: --fs-rewrite build/bin/fs-rewrite, --devset $DEVSET_ROOT or /tmp/devset,
# --labels test/RealApps/labels.json (what the scorer reads).
# Exit status: 0 when every dir was run (whatever the tool's own exit codes), 2 for
# usage errors and a missing tool or dev set.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
fs=$root/build/bin/fs-rewrite
devset=${DEVSET_ROOT:-/tmp/devset}
out=$root/results/realapps
commit=
labels=$root/test/RealApps/labels.json
score=1
dirs=()
usage() { sed -n '2,26p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
while [[ $# -gt 0 ]]; do
  case $1 in
    --fs-rewrite) fs=${2:?--fs-rewrite needs a path}; shift 2 ;;
    --fs-rewrite=*) fs=${1#*=}; shift ;;
    --devset) devset=${2:?--devset needs a directory}; shift 2 ;;
    --devset=*) devset=${1#*=}; shift ;;
    --out) out=${2:?--out needs a directory}; shift 2 ;;
    --out=*) out=${1#*=}; shift ;;
    --commit) commit=${2:?--commit needs a hash}; shift 2 ;;
    --commit=*) commit=${1#*=}; shift ;;
    --labels) labels=${2:?--labels needs a file}; shift 2 ;;
    --labels=*) labels=${1#*=}; shift ;;
    --no-score) score=0; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "realapps.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) dirs+=("$1"); shift ;;
  esac
done
[[ -x $fs ]] || { echo "realapps.sh: no fs-rewrite at $fs (build it, or pass --fs-rewrite)" >&2; exit 2; }
fs=$(cd "$(dirname "$fs")" && pwd)/$(basename "$fs")
[[ -d $devset ]] || { echo "realapps.sh: no dev set at $devset (run ../shared/devset/extract.sh)" >&2; exit 2; }
devset=$(cd "$devset" && pwd)
if [[ ${#dirs[@]} -eq 0 ]]; then
  for d in "$devset"/*/; do
    d=${d%/}; [[ -f $d/compile_commands.json ]] && dirs+=("$(basename "$d")")
  done
fi
[[ ${#dirs[@]} -gt 0 ]] || { echo "realapps.sh: no dir with a compile_commands.json under $devset" >&2; exit 2; }
for d in "${dirs[@]}"; do
  [[ -f $devset/$d/compile_commands.json ]] || { echo "realapps.sh: $devset/$d has no compile_commands.json" >&2; exit 2; }
done
[[ -n $commit ]] || commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
mkdir -p "$out" && out=$(cd "$out" && pwd)
run=$out/$(date +%Y-%m-%d)-$commit
rm -rf "$run.tmp" && mkdir -p "$run.tmp"

for d in "${dirs[@]}"; do
  mkdir -p "$run.tmp/$d"
  start=$(date +%s.%N)
  (cd "$devset/$d" && nice -n 10 "$fs" --list --json --dump-ir="$run.tmp/$d/ir.json" \
     --source-root="$devset/$d" compile_commands.json) \
     >"$run.tmp/$d/list.json" 2>"$run.tmp/$d/stderr.txt"
  echo $? >"$run.tmp/$d/rc"
  # The tool indents its documents deeply; keep them compact (same JSON values).
  for j in list ir; do
    python3 -c 'import json, sys
try:
    doc = json.load(open(sys.argv[1]))
except ValueError:
    sys.exit(0)
json.dump(doc, open(sys.argv[1], "w"), separators=(",", ":"))' "$run.tmp/$d/$j.json" 2>/dev/null
  done
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f\n", b - a }' >"$run.tmp/$d/seconds"
done

# A finished run replaces the previous one of the same day and commit.
rm -rf "$run" && mv "$run.tmp" "$run"

# The tool as the run records it: relative to this repository, else its file name.
case $fs in "$root"/*) fs_shown=${fs#"$root"/} ;; *) fs_shown=$(basename "$fs") ;; esac
python3 - "$run" "$devset" "$fs_shown" "$commit" "${dirs[@]}" <<'EOF' | tee "$run/summary.txt"
import collections, json, os, sys
run, devset, fs, commit, dirs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]

def norm(p):
    p = (p or "").replace("\\", "/")
    while p.startswith("./"):
        p = p[2:]
    return p

def same(a, b):
    a, b = norm(a), norm(b)
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)

def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None

def base(name):
    return (name or "").split("<", 1)[0].strip().rsplit("::", 1)[-1]

rows, dir_rows = [], []
tot = collections.Counter()
verdicts_all = collections.Counter()
for d in dirs:
    ddir = os.path.join(devset, d)
    rc = open(os.path.join(run, d, "rc")).read().strip()
    secs = open(os.path.join(run, d, "seconds")).read().strip()
    db = load(os.path.join(ddir, "compile_commands.json")) or []
    lst = load(os.path.join(run, d, "list.json"))
    ir = load(os.path.join(run, d, "ir.json"))
    tus = []
    for e in db:
        f = e.get("file", "")
        if not os.path.isabs(f):
            f = os.path.join(os.path.join(ddir, e.get("directory") or "."), f)
        f = os.path.relpath(os.path.normpath(f), ddir)
        if f not in tus:
            tus.append(f)
    kernels = (lst or {}).get("kernels") or []
    launches = (lst or {}).get("launches") or []
    irk = (ir or {}).get("kernels") or []
    for v in irk:
        verdicts_all[v.get("verdict", "?")] += 1
    ir_by = collections.defaultdict(list)
    for v in irk:
        ir_by[base(v.get("kernel"))].append(v)
    for tu in tus:
        row = collections.OrderedDict(dir=d, tu=tu, rc=rc)
        if lst is None:
            row.update(status="no output", stand_ins=[], first_error=(
                open(os.path.join(run, d, "stderr.txt"), errors="replace").read().strip().splitlines() or [""])[-1])
        elif "translation_units" in lst:
            t = next((t for t in lst["translation_units"] if same(t.get("file"), tu)), None)
            if t is None:
                row.update(status="not listed", stand_ins=[], first_error="")
            else:
                row.update(status=t.get("status", "?"), stand_ins=t.get("stand_ins") or [],
                           first_error=t.get("first_error") or "", side_status=t.get("side_status") or {})
        else:
            fails = [p for p in lst.get("parse_failures") or [] if same(p.get("file"), tu)]
            if fails:
                sides = sorted({p.get("side", "?") for p in fails})
                first = next((e for p in fails for e in p.get("first_errors") or []), "")
                row.update(status="failed", stand_ins=[], first_error=first,
                           side_status={s: ("failed" if s in sides else "parsed") for s in ("host", "device")})
            else:
                row.update(status="parsed", stand_ins=[], first_error="",
                           side_status={"host": "parsed", "device": "parsed"})
        ks = [k for k in kernels if same(k.get("translation_unit"), tu)]
        ls = [l for l in launches if same(l.get("translation_unit"), tu)]
        vc = collections.Counter()
        seen = set()
        for k in ks:
            key = (k.get("name"), norm(k.get("file")))
            if key in seen:
                continue
            seen.add(key)
            for v in ir_by.get(base(k.get("name")), []):
                if same(v.get("file"), k.get("file")):
                    vc[v.get("verdict", "?")] += 1
        row.update(kernels=len(ks), launches=len(ls), verdicts=dict(sorted(vc.items())))
        rows.append(row)
        tot["tus"] += 1
        tot[row["status"]] += 1
    dir_rows.append(collections.OrderedDict(dir=d, rc=int(rc) if rc.lstrip("-").isdigit() else rc,
                                            seconds=float(secs), tus=len(tus), kernels=len(kernels),
                                            launches=len(launches), ir_entries=len(irk)))
    tot["kernels"] += len(kernels)
    tot["launches"] += len(launches)

w = sys.stdout.write
w("tool %s (commit %s), dev set %s\n\n" % (fs, commit, devset))
w("%-15s %-52s %-3s %-22s %7s %8s  %s\n" % ("dir", "translation unit", "rc", "status", "kernels", "launches", "verdicts"))
for r in rows:
    st = r["status"]
    ss = r.get("side_status") or {}
    if st == "failed" and ss:
        st += " (%s)" % "+".join(s for s in ("host", "device") if ss.get(s) == "failed")
    if r.get("stand_ins"):
        st += " (%d)" % len(r["stand_ins"])
    vs = " ".join("%s %d" % kv for kv in r["verdicts"].items()) or "-"
    w("%-15s %-52s %-3s %-22s %7d %8d  %s\n" % (r["dir"], r["tu"][-52:], r["rc"], st, r["kernels"], r["launches"], vs))
    if r.get("stand_ins"):
        w("%-15s   stand-ins: %s\n" % ("", ", ".join(map(str, r["stand_ins"]))[:160]))
    if r["first_error"] and r["status"] != "parsed":
        w("%-15s   first error: %s\n" % ("", r["first_error"][:160]))
rcs = collections.Counter(str(x["rc"]) for x in dir_rows)
w("\nsummary: %d dirs, %d TUs: %d parsed, %d parsed with stand-ins, %d failed%s; %d kernels, %d launches; "
  "dump: %s; exit codes: %s; %.0f s\n" % (
      len(dirs), tot["tus"], tot["parsed"], tot["parsed with stand-ins"], tot["failed"],
      "".join(", %d %s" % (tot[s], s) for s in ("no output", "not listed") if tot[s]),
      tot["kernels"], tot["launches"],
      ", ".join("%s %d" % kv for kv in sorted(verdicts_all.items())) or "empty",
      ", ".join("%s x%d" % kv for kv in sorted(rcs.items())), sum(x["seconds"] for x in dir_rows)))
json.dump({"fs_rewrite": fs, "commit": commit, "devset": devset, "dirs": dir_rows, "translation_units": rows,
           "summary": {"tus": tot["tus"], "parsed": tot["parsed"],
                       "parsed_with_stand_ins": tot["parsed with stand-ins"], "failed": tot["failed"],
                       "kernels": tot["kernels"], "launches": tot["launches"],
                       "verdicts": dict(sorted(verdicts_all.items()))}},
          open(os.path.join(run, "run.json"), "w"), indent=1)
EOF

if [[ $score -eq 1 ]]; then
  dirlist=$(IFS=,; echo "${dirs[*]}")
  { echo; python3 "$root/utils/score-realapps.py" --labels "$labels" --results "$run" --dirs "$dirlist"; } |
    tee -a "$run/summary.txt"
  python3 "$root/utils/score-realapps.py" --labels "$labels" --results "$run" --dirs "$dirlist" --json \
    >"$run/score.json"
fi
echo "results in $run"
