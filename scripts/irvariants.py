"""What the IR variant scripts share (rtm-ir-variants.py,
ir-order-variants.py): sums of the IR's expression trees, and the command
line IR.json OUTDIR, each variant written as OUTDIR/<name>.json."""
import json
import os
import sys


def is_sum(e):
    return e.get("kind") == "binary" and e["op"] == "+"


def terms(e):
    """The terms of a sum of sums, in order."""
    if is_sum(e):
        return terms(e["args"][0]) + terms(e["args"][1])
    return [e]


def add(a, b):
    return {"kind": "binary", "op": "+", "args": [a, b]}


def chained(ts):
    """ts added left to right: ((t0 + t1) + t2) + ..."""
    acc = ts[0]
    for t in ts[1:]:
        acc = add(acc, t)
    return acc


def main(usage, make):
    """Reads the IR file given, calls make(ir) for {name: variant IR}, and
    writes each variant; exits with usage on a wrong command line."""
    if len(sys.argv) != 3:
        sys.exit(usage)
    with open(sys.argv[1], encoding="utf-8") as f:
        ir = json.load(f)
    os.makedirs(sys.argv[2], exist_ok=True)
    for name, v in make(ir).items():
        with open(os.path.join(sys.argv[2], name + ".json"), "w",
                  encoding="utf-8") as f:
            json.dump(v, f)
