"""Prints the Stencil IR of `fs-rewrite --dump-ir` one fact per line.

The pretty-printed JSON puts every number of an offset on its own line;
this keeps each fact (an axis, an input's offsets, an update) on one line
so that a FileCheck line states it whole.
"""
import json
import sys


def offset(o):
    return "(" + ",".join(str(v) for v in o) + ")"


def expr(e):
    kind = e["kind"]
    args = [expr(a) for a in e.get("args", [])]
    if kind == "read":
        field = "{%s}" % e["field"] if "field" in e else ""
        return e["array"] + field + offset(e["offset"])
    if kind == "coef":
        if "index_expr" in e:
            return e["name"] + "[" + e["index_expr"] + "]"
        return e["name"] + ("[%d]" % e["index"] if "index" in e else "")
    if kind == "param":
        return e["name"]
    if kind == "literal":
        return e["value"]
    if kind == "unary":
        if e["op"].startswith("to_"):
            return "(" + e["op"][3:] + ")" + args[0]
        return ("-" if e["op"] == "neg" else e["op"]) + args[0]
    if kind == "binary":
        return "(" + args[0] + " " + e["op"] + " " + args[1] + ")"
    if kind == "select":
        return "(" + args[0] + " ? " + args[1] + " : " + args[2] + ")"
    return e["op"] + "(" + ", ".join(args) + ")"


def main():
    doc = json.load(sys.stdin)
    for k in doc["kernels"]:
        print("kernel %s %s" % (k["kernel"], k["verdict"]))
        for r in k["reasons"]:
            # {kind, text}; the sentence is what tests read.
            print("  reason: " + (r["text"] if isinstance(r, dict) else r))
        ir = k.get("ir")
        if not ir:
            continue
        print("  %dD %s" % (ir["dims"], ir["element_type"]))
        for a in ir["axes"]:
            linear = ""
            if "block_dim" in a:
                linear = " block %s" % a["block_dim"]
            if "linear_step" in a:
                linear = " step %s modulus %s" % (
                    a["linear_step"], a.get("linear_modulus", "-"))
            if "clamp_lower" in a:
                linear += " clamp [%s, %s]" % (a["clamp_lower"], a["clamp_upper"])
            if "wrap_lower" in a:
                linear += " wrap [%s, %s]" % (a["wrap_lower"], a["wrap_upper"])
            if "zero_lower" in a:
                linear += " zero [%s, %s]" % (a["zero_lower"], a["zero_upper"])
            if "wrap_period" in a:
                linear += " period %s" % a["wrap_period"]
            if "block_points" in a:
                linear += " block_points %d first %d" % (
                    a["block_points"], a["block_first"])
            if a.get("block_loop"):
                linear += " block_loop"
            if "thread_points" in a:
                linear += " thread_points %d" % a["thread_points"]
            print("  axis %s %s %s [%s, %s) extent %s shift %s%s" % (
                a["name"], a["source"], a["thread_dim"], a["lower"],
                a["upper"], a["extent"] or "-", a["thread_offset"], linear))
        print("  strides " + " ".join(ir["strides"]))
        for i in ir["inputs"]:
            flags = [f for f in ("restrict", "ldg", "per_point_coefficient")
                     if i[f]]
            layout = ""
            if "strides" in i:
                layout = " strides " + ",".join(i["strides"])
            print("  input %s %s%s%s" % (
                i["param"] + ("{%s}" % i["field"] if "field" in i else ""),
                " ".join(offset(o) for o in i["offsets"]),
                "".join(" " + f for f in flags), layout))
        for o in ir["outputs"]:
            flags = [f for f in ("accumulate", "in_place") if o[f]]
            print("  output %s at %s%s%s" % (
                o["param"] + ("{%s}" % o["field"] if "field" in o else ""),
                offset(o["write_offset"]),
                "".join(" " + f for f in flags),
                (" strides " + ",".join(o["strides"]) if "strides" in o else "") +
                (" box " + " x ".join("[%s, %s)" % b for b in zip(o["lower"], o["upper"]))
                 if "lower" in o else "")))
        for c in ir["coefficients"]:
            print("  coefficient %s %s %s x%d" % (
                c["name"], c["kind"], c["type"], c["size"]))
        for p in ir["params"]:
            print("  param %s %s" % (p["name"], p["role"]))
        for u in ir["updates"]:
            print("  update %s %s %s" % (
                u["target"] + ("{%s}" % u["target_field"] if "target_field" in u else ""),
                "+=" if u["accumulate"] else "=",
                expr(u["value"])))
        print("  shape %s r=%d points=%d flops=%d bytes=%d" % (
            ir["shape"], ir["radius"], ir["points"], ir["flops_per_point"],
            ir["bytes_per_point"]))
        for n in ir["notes"]:
            print("  note: " + n)
        for c in ir.get("constants", []):
            print("  constant %s %s = %s (%s %s)" % (
                c["name"], c["type"], c["value"], c["origin"], c["defined_at"]))
        for a in ir.get("assumptions", []):
            op = {"grid-dim-max": "<=", "at-least": ">=",
                  "block-dim-at-least": ">="}.get(a["kind"], "==")
            print("  assume %s %s %s %s" % (a["kind"], a["expr"], op, a["value"]))
        frame = ir.get("frame")
        if frame:
            box = " x ".join("[%s, %s)" % b for b in zip(frame["lower"], frame["upper"]))
            for u in frame["updates"]:
                print("  frame %s: %s = %s" % (box, u["target"], expr(u["value"])))
        for r in ir.get("block_reductions", []):
            print("  block reduction %s -> %s by %s" % (
                r["shared"], ",".join(r["outputs"]), r["call"]))
        if "not_rewritten" in k:
            print("  not rewritten: " + k["not_rewritten"])


if __name__ == "__main__":
    main()
