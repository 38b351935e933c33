#!/usr/bin/env bash
# The LLM generation loop on a GPU host without LLVM, against a scripted
# model (utils/scripted-llm-server.py) whose answers are known-good and
# known-bad kernels, with real verification against the app's original kernel
# and real timing by fs-tune. Builds fs-tune and fs-agent (-DFS_ENABLE_LLVM=OFF),
# then runs each scenario on a fresh copy of the heat bundle in
# .carry/bundles/heat:
#
#   repair  the first kernel swaps the coefficients on one plane; the
#           verifier's mismatch goes back to the model; the second kernel is
#           verified and timed against the original.
#   rank    a wrong result, an out-of-bounds read, an interior-only kernel,
#           then a plain correct kernel and a faster one (the loop asks for
#           it in a fresh conversation after the first is verified), then a
#           kernel that writes nothing: each bad one is rejected with its
#           reason, the good ones are timed and the faster is kept.
#
# The answers and what each should get are test/Agents/Inputs/gpu/<name>.json.
# Writes to $OUT (default ./llm-out): summary.txt (round, candidate, verdict,
# reason, original and candidate medians, against what was expected),
# <name>.log (fs-agent's progress), <name>-results.json (fs-tune's last
# results), build.log, and llm-runs.tar.gz (the run directories: every prompt,
# answer, verdict, measurement, candidate and fs-tune log).
#
#   scripts/gpu/carry-headers.sh; scripts/gpu/make-llm-bundles.sh  # where fs-rewrite is
#   scripts/gpu/llm-loop.sh [--compile-only] [repair] [rank]        # where the GPU is
#
# --compile-only runs the same scenarios without a GPU: every loop ends at its
# first answer that compiles, and the expectations are not checked.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
compile_only=()
if [ "${1:-}" = "--compile-only" ]; then
  compile_only=(--compile-only)
  shift
fi
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(repair rank)
out=${OUT:-$PWD/llm-out}
build=${FS_BUILD_DIR:-$root/build-llm-gpu}
bundle=${FS_LLM_BUNDLE:-$root/.carry/bundles/heat}
work=${FS_WORK_DIR:-/tmp/fs-llm}
inputs=$root/test/Agents/Inputs/gpu
nvcc=${CUDACXX:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
mkdir -p "$out" "$work"

if [ ! -f "$bundle/manifest.json" ]; then
  echo "llm-loop: no bundle at $bundle: run scripts/gpu/make-llm-bundles.sh" \
    "where fs-rewrite is and carry .carry here" >&2
  exit 1
fi
for name in "${scenarios[@]}"; do
  if [ ! -f "$inputs/$name.json" ]; then
    echo "llm-loop: no scenario '$name' (no $inputs/$name.json)" >&2
    exit 1
  fi
done

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
extra=()
[ -d "$root/.carry/include" ] && extra=(-DFS_EXTRA_INCLUDE_DIR="$root/.carry/include")
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DFS_ENABLE_LLVM=OFF -DFS_ENABLE_TESTS=OFF -DFS_PARTS= "${extra[@]}" > "$out/build.log" 2>&1
cmake --build "$build" --target fs-tune -j "$(nproc)" >> "$out/build.log" 2>&1
if ! cmake --build "$build" --target fs-agent -j "$(nproc)" >> "$out/build.log" 2>&1; then
  echo "llm-loop: fs-agent did not build; is libcurl found? (see $out/build.log," \
    "and carry curl's headers with scripts/gpu/carry-headers.sh)" >&2
  exit 1
fi

status=0
runs=()
for name in "${scenarios[@]}"; do
  dir=$work/$name
  rm -rf "$dir"
  mkdir -p "$dir"
  cp -r "$bundle" "$dir/bundle"
  rounds=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' \
    "$inputs/$name.json")
  echo "== $name: $rounds scripted answers"
  # No key: the scripted server is local. Every fs-tune run builds with all
  # cores and times in one round of its successive halving.
  if FS_LLM_MODEL=scripted python3 "$root/utils/scripted-llm-server.py" \
      --timeout 1800 "$inputs/$name.json" "$dir/port" -- \
      "$build/bin/fs-agent" "$dir/bundle" --rounds "$rounds" --run-dir "$dir/run" \
      --fs-tune-arg=--nvcc="$nvcc" --fs-tune-arg=--jobs="$(nproc)" \
      --fs-tune-arg=--rounds=1 "${compile_only[@]}" 2>&1 | tee "$out/$name.log"; then
    :
  else
    echo "llm-loop: $name: fs-agent failed (see $out/$name.log)" >&2
    status=1
  fi
  last=$(ls "$dir/run"/*.results.json 2>/dev/null | sort -V | tail -1 || true)
  [ -z "$last" ] || cp "$last" "$out/$name-results.json"
  runs+=("$name/run")
done

# The summary: one row per round that reached the evaluator, from the run
# directory's verdict records and the results of that round's fs-tune run,
# checked against the scenario's expectations and against the loop's choice.
python3 - "$work" "$inputs" "$out" "${#compile_only[@]}" "${scenarios[@]}" \
  > "$out/summary.txt" <<'PY' || status=1
import glob, json, os, re, subprocess, sys

work, inputs, out, compile_only = sys.argv[1:5]
compile_only = compile_only != "0"
failed = False
try:
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version",
                          "--format=csv,noheader"], capture_output=True,
                         text=True).stdout.strip()
except OSError:
    gpu = ""
print("GPU: %s%s" % (gpu or "none", " (compile-only)" if compile_only else ""))
for name in sys.argv[5:]:
    run = os.path.join(work, name, "run")
    answers = json.load(open(os.path.join(inputs, name + ".json")))
    rows = []
    for path in sorted(glob.glob(os.path.join(run, "*-verdict.json"))):
        p = json.load(open(path))["payload"]
        cand = p.get("candidate", "")
        orig_ms = cand_ms = 0.0
        if cand:
            stem = cand[len("src:"):]
            res = os.path.join(run, stem + ".results.json")
            if os.path.exists(res):
                for c in json.load(open(res)).get("candidates", []):
                    if c.get("id") == cand:
                        orig_ms = c.get("original_ms", 0.0)
                        cand_ms = c.get("candidate_ms", 0.0)
        rows.append((p["round"], cand or "(" + p["stage"] + ")", p["verdict"],
                     p.get("reason", ""), orig_ms, cand_ms))
    print("\n== %s" % name)
    print("%-5s %-24s %-21s %9s %9s  %-8s %s" % (
        "round", "candidate", "verdict", "orig ms", "cand ms", "expected",
        "reason"))
    for r in rows:
        want = answers[r[0] - 1].get("expect") if r[0] <= len(answers) else None
        ok = "-"
        if want and not compile_only:
            ok = "yes" if r[2] == want[0] and want[1] in r[3] else "NO"
            failed |= ok == "NO"
        reason = r[3].splitlines()[0] if r[3] else ""
        print("%-5d %-24s %-21s %9.4f %9.4f  %-8s %s" % (
            r[0], r[1], r[2], r[4], r[5], ok, reason[:110]))
    if not compile_only and len(rows) != len(answers):
        print("NO: %d answers, %d reached the evaluator" % (len(answers), len(rows)))
        failed = True
    log = open(os.path.join(out, name + ".log")).read()
    kept = re.search(r"candidate (src:\S+) after", log)
    verified = [r for r in rows if r[2] == "verified" and r[5] > 0]
    print("kept by the loop: %s" % (kept.group(1) if kept else "none"))
    if verified:
        fastest = min(verified, key=lambda r: r[5])
        print("fastest verified: %s (%.4f ms; original %.4f ms, %.2fx)" % (
            fastest[1], fastest[5], fastest[4], fastest[4] / fastest[5]))
        if not kept or kept.group(1) != fastest[1]:
            print("NO: the loop did not keep the fastest verified candidate")
            failed = True
sys.exit(1 if failed else 0)
PY
cat "$out/summary.txt"
tar czf "$out/llm-runs.tar.gz" -C "$work" "${runs[@]}"
exit $status
