"""The command line the IR variant scripts share (rtm-ir-variants.py,
ir-order-variants.py): IR.json OUTDIR, each variant written as
OUTDIR/<name>.json."""
import json
import os
import sys


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
