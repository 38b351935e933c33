#!/usr/bin/env python3
"""Writes variants of a Stencil IR file of rtm's in-place update
(pnext = 2 pcur - pnext + vdt2 * lap(pcur), fs-rewrite --dump-ir of
apps/rtm), each changing one thing that separates it from fs-bench's named
rtm stencil, so that fs-bench can time what each costs:

  oop   out of place: pnext's reads go to a new input 'pold'
  carr  the five __constant__ scalars c0..c4 become one array c[5]
  ord   each distance's six neighbours are added in the named stencil's
        order (-x, +x, -y, +y, -z, +z) instead of the app's (+x, -x, ...)
  all   oop, carr and ord together: the named stencil's shape

  scripts/rtm-ir-variants.py rtm.json OUTDIR
"""
import copy

import irvariants
from irvariants import chained, is_sum, terms


def walk(e, f):
    e = f(e)
    if "args" in e:
        e["args"] = [walk(a, f) for a in e["args"]]
    return e


def out_of_place(ir):
    ir = copy.deepcopy(ir)

    def f(e):
        if e.get("kind") == "read" and e.get("array") == "pnext":
            e = dict(e, array="pold")
        return e
    for u in ir["updates"]:
        u["value"] = walk(u["value"], f)
    ir["inputs"] = [i for i in ir["inputs"] if i["param"] != "pnext"] + [
        {"ldg": False, "offsets": [[0, 0, 0]], "param": "pold",
         "per_point_coefficient": False, "restrict": True}]
    params = [dict(p, role="output") if p["name"] == "pnext" else p
              for p in ir["params"]]
    params.insert(1, {"name": "pold", "role": "input",
                      "type": "const float *__restrict"})
    ir["params"] = params
    ir["kernel"] += "_oop"
    return ir


def coefficient_array(ir):
    ir = copy.deepcopy(ir)
    names = [c["name"] for c in ir["coefficients"]]

    def f(e):
        if e.get("kind") == "coef" and e["name"] in names:
            e = {"index": names.index(e["name"]), "kind": "coef", "name": "c"}
        return e
    for u in ir["updates"]:
        u["value"] = walk(u["value"], f)
    ir["coefficients"] = [{"kind": "constant-array", "name": "c",
                           "size": len(names), "type": ir["element_type"]}]
    ir["kernel"] += "_carr"
    return ir


def named_order(ir):
    ir = copy.deepcopy(ir)

    def axis_then_sign(l):
        axis = [i for i in range(3) if l["offset"][i] != 0][0]
        return axis, sum(l["offset"])

    def f(e):
        if is_sum(e):
            ls = terms(e)
            if len(ls) == 6 and all(l.get("kind") == "read" for l in ls):
                return chained(sorted(ls, key=axis_then_sign))
        return e
    for u in ir["updates"]:
        u["value"] = walk(u["value"], f)
    ir["kernel"] += "_ord"
    return ir


def main():
    irvariants.main(__doc__, lambda ir: {
        "app": ir, "oop": out_of_place(ir), "carr": coefficient_array(ir),
        "ord": named_order(ir),
        "all": named_order(coefficient_array(out_of_place(ir)))})


if __name__ == "__main__":
    main()
