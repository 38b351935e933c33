#!/usr/bin/env python3
"""Runs lit over the test tree and ends with the summary line
"N passed, N failed, N skipped" (expected failures count as passed, unsupported
tests as skipped). The exit status is lit's."""
import json
import os
import subprocess
import sys
import tempfile


def main() -> int:
    # run-lit.py LIT [lit options...] TEST_DIR... (the tool tests and the
    # gtest suite under Unit/ are separate lit suites).
    lit, *rest = sys.argv[1:]
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "lit.json")
        args = [lit, "-sv", "--output", report, *rest]
        rc = subprocess.call(args)
        try:
            with open(report) as f:
                tests = json.load(f).get("tests", [])
        except (OSError, ValueError):
            print("0 passed, 1 failed (lit wrote no report)")
            return rc or 1
    # Where the time goes, so that a CI log shows which tests to make
    # cheaper when the suite grows slow.
    timed = sorted((t for t in tests if t.get("elapsed")),
                   key=lambda t: -t["elapsed"])
    total = sum(t["elapsed"] for t in timed)
    if timed:
        print("slowest tests (of %.0f s of test time in all):" % total)
        for t in timed[:12]:
            print("  %7.1f s  %s" % (t["elapsed"], t.get("name", "?")))
    passed = failed = skipped = 0
    for t in tests:
        code = t.get("code", "")
        if code in ("PASS", "XFAIL", "FLAKYPASS"):
            passed += 1
        elif code in ("UNSUPPORTED", "SKIPPED", "EXCLUDED"):
            skipped += 1
        else:
            failed += 1
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return rc if rc else (1 if failed else 0)


if __name__ == "__main__":
    sys.exit(main())
