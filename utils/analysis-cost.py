#!/usr/bin/env python3
"""The analysis cost of one compile database: fs-rewrite against clang.

    utils/analysis-cost.py --fs-rewrite PATH [--runs N] DIR

Runs `fs-rewrite --list --json DIR/compile_commands.json` N times and the clang
commands fs-rewrite runs for the host and the device side of every TU (as its
-v notes print them, with -fsyntax-only) N times, and prints JSON: the CPU
seconds of each run of both, their medians and the ratio of the medians.
clang reads the analysis prelude from the source tree (fs-rewrite has it in
memory) and gets every include fs-rewrite stood in for as an empty file, so
both parse the same text. scripts/realapps.sh --cost calls this per dir.
"""

import argparse
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


def clang_commands(fs_rewrite, db, cwd):
    """The clang commands fs-rewrite runs, from its -v notes."""
    p = subprocess.run([fs_rewrite, "--list", "-v", db], cwd=cwd,
                       capture_output=True, text=True)
    cmds = []
    for line in p.stderr.splitlines():
        m = re.search(r": clang command, (host|device) side: (.*)$", line)
        if m:
            cmds.append(shlex.split(m.group(2)))
    return cmds


def clang_cpu(cmds, stand_ins, stub_dir, cwd):
    for name in stand_ins:
        path = os.path.join(stub_dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "a").close()
    total = 0.0
    for cmd in cmds:
        argv = [PRELUDE_FILE if a == PRELUDE_IN_MEMORY else a for a in cmd]
        argv = argv[:-1] + ["-ferror-limit=0", "-idirafter", stub_dir, argv[-1]]
        total += cpu_of(argv, cwd=cwd)[3]
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--fs-rewrite", default=os.path.join(ROOT, "build", "bin", "fs-rewrite"))
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    d = os.path.abspath(args.dir)
    db = os.path.join(d, "compile_commands.json")
    if not os.path.isfile(db):
        print(f"analysis-cost.py: {db} does not exist", file=sys.stderr)
        return 2
    ours, stand_ins = [], set()
    for _ in range(args.runs):
        rc, out, _, cpu = cpu_of([args.fs_rewrite, "--list", "--json", db], cwd=d)
        ours.append(cpu)
        try:
            for t in json.loads(out).get("translation_units", []):
                stand_ins.update(t.get("stand_ins") or [])
        except ValueError:
            pass
    cmds = clang_commands(args.fs_rewrite, db, d)
    with tempfile.TemporaryDirectory(prefix="fs-cost-") as stub:
        theirs = [clang_cpu(cmds, sorted(stand_ins), stub, d) for _ in range(args.runs)]
    mo, mt = statistics.median(ours), statistics.median(theirs)
    json.dump({"runs": args.runs, "clang_commands": len(cmds),
               "fs_rewrite_cpu_s": [round(x, 3) for x in ours],
               "clang_cpu_s": [round(x, 3) for x in theirs],
               "fs_rewrite_median_s": round(mo, 3), "clang_median_s": round(mt, 3),
               "ratio": round(mo / mt, 3) if mt > 0 else None},
              sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
