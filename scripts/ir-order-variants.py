#!/usr/bin/env python3
"""Writes variants of a Stencil IR file (fs-bench --dump-ir, fs-rewrite
--dump-ir) that compute the same sums in another order, so that fs-bench can
time what the original's order of additions costs a strategy. The variants
round differently: fs-bench verifies each against its own IR, not against
the file given.

  as     the file as given
  chain  every sum of sums flattened into one left-to-right chain of its
         terms, in the given order (a + b + c + ...: one multiply and then
         fused multiply-adds for a sum of products)
  tree   every sum of sums flattened and then added as a balanced tree
         (shortest dependency chains)
  dist   a coefficient times a sum distributed over the sum's terms
         (c * (a + b) becomes c * a + c * b), then chained as in chain

usage: scripts/ir-order-variants.py IR.json OUTDIR
"""
import copy

import irvariants
from irvariants import add, chained, is_sum, terms


def balanced(ts):
    if len(ts) == 1:
        return ts[0]
    half = (len(ts) + 1) // 2
    return add(balanced(ts[:half]), balanced(ts[half:]))


def regroup(e, build):
    """Rebuilds every maximal sum of e with build(terms), inside out."""
    if is_sum(e):
        return build([regroup(t, build) for t in terms(e)])
    if "args" in e:
        e = dict(e, args=[regroup(a, build) for a in e["args"]])
    return e


def distribute(e):
    if "args" in e:
        e = dict(e, args=[distribute(a) for a in e["args"]])
    if e.get("kind") == "binary" and e["op"] == "*":
        a, b = e["args"]
        for coef, s in ((a, b), (b, a)):
            if coef.get("kind") in ("coef", "literal") and is_sum(s):
                return chained([{"kind": "binary", "op": "*",
                                 "args": [coef, t]} for t in terms(s)])
    return e


def variant(ir, name, f):
    ir = copy.deepcopy(ir)
    for u in ir["updates"]:
        u["value"] = f(u["value"])
    ir["kernel"] = ir.get("kernel", "kernel") + "_" + name
    return ir


def main():
    irvariants.main(__doc__, lambda ir: {
        "as": ir,
        "chain": variant(ir, "chain", lambda e: regroup(e, chained)),
        "tree": variant(ir, "tree", lambda e: regroup(e, balanced)),
        "dist": variant(ir, "dist",
                        lambda e: regroup(distribute(e), chained)),
    })


if __name__ == "__main__":
    main()
