#!/usr/bin/env python3
"""Runs fs-rewrite --list --json over extracted third-party apps and sums up.

    scripts/realapps.py [--fs-rewrite PATH] [--root DIR] [--out FILE] [DIR...]

Every DIR (default: every directory under --root, $DEVSET_ROOT or /tmp/devset,
that holds a compile_commands.json) is analysed once. One row is printed per
translation unit (its status, the kernels it defines, the launches it holds,
the analyses' verdicts of those kernels), then one row per app with the exit
code and a summary line. --cost adds the analysis cost: fs-rewrite's CPU time
against clang -fsyntax-only of both sides of every TU (the same commands
fs-rewrite runs, see -v), median of --runs runs. The apps' sources are never
copied anywhere; --out writes the table (Markdown) to FILE as well.
"""

import argparse
import collections
import json
import os
import re
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRELUDE_IN_MEMORY = "/__forgestencil__/analysis-prelude.h"
PRELUDE_FILE = os.path.join(ROOT, "lib", "Driver", "Prelude", "analysis-prelude.h")


def cpu_of(argv, cwd=None):
    """Runs argv; returns (exit code, stdout, stderr, CPU seconds of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return p.returncode, p.stdout, p.stderr, cpu


def analyse(fs_rewrite, app_dir):
    db = os.path.join(app_dir, "compile_commands.json")
    rc, out, err, cpu = cpu_of([fs_rewrite, "--list", "--json", db])
    try:
        listing = json.loads(out)
    except ValueError:
        listing = None
    return rc, listing, err, cpu


def tu_rows(listing):
    """One row per TU: status, kernels defined, launches, verdicts."""
    by_tu_kernels = collections.Counter(k["translation_unit"] for k in listing["kernels"])
    by_tu_launches = collections.Counter(l["translation_unit"] for l in listing["launches"])
    verdicts = collections.defaultdict(collections.Counter)
    launch_tu_by_line = {(l["file"], l["line"]): l["translation_unit"]
                         for l in listing["launches"]}
    for r in listing["hotspots"]:
        tu = launch_tu_by_line.get((r["file"], r["line"]))
        if tu:
            verdicts[tu][r["verdict"]] += 1
    rows = []
    for t in listing["translation_units"]:
        f = t["file"]
        v = ", ".join(f"{n} {k}" for k, n in sorted(verdicts[f].items())) or "-"
        status = t["status"]
        if t["stand_ins"]:
            status += " (" + ", ".join(t["stand_ins"]) + ")"
        rows.append((f, status, by_tu_kernels[f], by_tu_launches[f], v, t["first_error"]))
    return rows


def clang_commands(fs_rewrite, app_dir):
    """The clang commands fs-rewrite runs, from its -v notes."""
    db = os.path.join(app_dir, "compile_commands.json")
    p = subprocess.run([fs_rewrite, "--list", "-v", db], capture_output=True, text=True)
    cmds = []
    for line in p.stderr.splitlines():
        m = re.search(r": clang command, (host|device) side: (.*)$", line)
        if m:
            cmds.append(shlex.split(m.group(2)))
    return cmds


def clang_cpu(cmds, stand_ins, stub_dir):
    """CPU seconds of clang -fsyntax-only over cmds, with the prelude read
    from the source tree and the stood-in headers as empty files."""
    for name in stand_ins:
        path = os.path.join(stub_dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "a").close()
    total = 0.0
    for cmd in cmds:
        argv = [PRELUDE_FILE if a == PRELUDE_IN_MEMORY else a for a in cmd]
        argv = argv[:-1] + ["-ferror-limit=0", "-idirafter", stub_dir, argv[-1]]
        total += cpu_of(argv)[3]
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dirs", nargs="*")
    ap.add_argument("--fs-rewrite", default=os.path.join(ROOT, "build", "bin", "fs-rewrite"))
    ap.add_argument("--root", default=os.environ.get("DEVSET_ROOT", "/tmp/devset"))
    ap.add_argument("--out")
    ap.add_argument("--cost", action="store_true")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    dirs = args.dirs or sorted(
        os.path.join(args.root, d) for d in os.listdir(args.root)
        if os.path.isfile(os.path.join(args.root, d, "compile_commands.json")))

    lines = ["| app | TU | status | kernels | launches | verdicts of its launches | first error |",
             "|---|---|---|---|---|---|---|"]
    apps = ["| app | TUs | status | kernels | launches | exit |" +
            (" fs-rewrite --list CPU s | clang host + device CPU s | ratio |" if args.cost else ""),
            "|---|---|---|---|---|---|" + ("---|---|---|" if args.cost else "")]
    totals = collections.Counter()
    for app_dir in dirs:
        name = os.path.basename(app_dir.rstrip("/"))
        rc, listing, err, cpu = analyse(args.fs_rewrite, app_dir)
        if listing is None:
            apps.append(f"| {name} | - | no listing | - | - | {rc} |")
            totals["crashed" if rc < 0 or rc > 2 else "no listing"] += 1
            continue
        rows = tu_rows(listing)
        for f, status, k, l, v, e in rows:
            e = e.replace("|", "\\|")
            lines.append(f"| {name} | {f} | {status} | {k} | {l} | {v} | {e} |")
        st = collections.Counter(t["status"] for t in listing["translation_units"])
        totals.update(st)
        totals["apps"] += 1
        totals[f"exit {rc}"] += 1
        status = ", ".join(f"{n} {s}" for s, n in sorted(st.items()))
        row = (f"| {name} | {len(rows)} | {status} | {len(listing['kernels'])} | "
               f"{len(listing['launches'])} | {rc} |")
        if args.cost:
            ours = [cpu] + [analyse(args.fs_rewrite, app_dir)[3] for _ in range(args.runs - 1)]
            cmds = clang_commands(args.fs_rewrite, app_dir)
            stand_ins = sorted({s for t in listing["translation_units"] for s in t["stand_ins"]})
            with tempfile.TemporaryDirectory(prefix="fs-cost-") as stub:
                theirs = [clang_cpu(cmds, stand_ins, stub) for _ in range(args.runs)]
            mo, mt = statistics.median(ours), statistics.median(theirs)
            row += (f" {', '.join(f'{x:.2f}' for x in ours)} (median {mo:.2f}) |"
                    f" {', '.join(f'{x:.2f}' for x in theirs)} (median {mt:.2f}) |"
                    f" {mo / mt:.2f} |")
        apps.append(row)
    summary = ("summary: " + f"{totals['apps']} apps, " +
               ", ".join(f"{totals[s]} TUs {s}" for s in ("parsed", "parsed with stand-ins", "failed")) +
               ", " + ", ".join(f"{n} apps {k}" for k, n in sorted(totals.items()) if k.startswith("exit")) +
               (f", {totals['crashed']} crashed" if totals["crashed"] else ""))
    text = "\n".join(apps) + "\n\n" + "\n".join(lines) + "\n\n" + summary + "\n"
    sys.stdout.write(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
