#!/usr/bin/env python3
"""Score fs-rewrite's analysis of the third-party dev set against hand labels.

    score-realapps.py [--labels FILE] [--results DIR | --dump DIR=IR.json ...]
                      [--dirs a,b] [--json] [--min-recall X] [--min-exact X]
    score-realapps.py --check-labels [--labels FILE]

Labels: test/RealApps/labels.json ({"kernels": [{dir, file, kernel, line, stencil,
dims, points, radius, shape, ...}]}). Analyses: the JSON that `fs-rewrite --dump-ir`
writes ({"kernels": [{kernel, file, line, verdict, reasons, ir}]}, docs/stencil-ir.md),
one per dev-set dir, given as --dump DIR=FILE or found as RESULTS/<dir>/ir.json (the
layout scripts/realapps.sh writes). Only the dirs with a dump are scored (or those
named by --dirs; a named dir without a dump scores as all missed).

Matching: a label matches the dump entries of its dir whose base name (the name up to
the first '<', without namespace qualifiers) equals the label's kernel and whose file
is the label's file (equal, or one ends with '/' + the other). A template label
matches all its instantiations. Labels with "in_build": false are not scored.

Per label, over its matched entries:
  recognised      every entry has verdict "stencil"; for a label with
                  temporal_blocking, an entry that reports in-kernel temporal blocking
                  (an IR member or a reason that says "temporal") counts too
  right footprint recognised and every entry's IR has the label's dims, radius and
                  points (only dims when the label's footprint is symbolic, points null);
                  the IR's points are counted as the labels count them: over the
                  inputs read at more than the centre (the IR's own `points` also
                  counts arrays read only at the centre). A temporally blocked
                  entry without an IR is compared by one step's footprint, its
                  temporal_blocking.step (the labels give one step's footprint)
  shape           among recognised labels with a shape: the IR's shape equals it
  false positive  a non-stencil label with any entry called "stencil"
A refusal without a reason is any scored-dir dump entry whose verdict is not
"stencil" and whose reasons are empty. Kernels missing from the dump are missed with
the reason "not in the dump".

--check-labels only validates the label file (required members, value ranges, a box's
point count, duplicates) and prints the labels per dir; exit 1 when a label is wrong.

Exit status 0; 1 when --min-recall/--min-exact is given and not met (X a fraction, or
a percentage when above 1); 2 for bad input.
"""
import argparse
import collections
import json
import os
import re
import sys


def base_name(name):
    name = name.split("<", 1)[0].strip()
    return name.rsplit("::", 1)[-1]


def norm_file(path):
    path = (path or "").replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def same_file(a, b):
    a, b = norm_file(a), norm_file(b)
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)


def reason_texts(entry):
    out = []
    for r in entry.get("reasons") or []:
        if isinstance(r, dict):
            kind, text = r.get("kind", ""), r.get("text", "")
            out.append("%s: %s" % (kind, text) if kind and text else (text or kind))
        else:
            out.append(str(r))
    return [t for t in out if t]


def reports_temporal(entry):
    ir = entry.get("ir") or {}
    if entry.get("temporal_blocking") or ir.get("temporal_blocking") or ir.get("time_steps"):
        return True
    words = reason_texts(entry) + [str(n) for n in ir.get("notes") or []]
    return any("temporal" in w.lower() for w in words)


def labelled_points(ir):
    """The IR's point count under the labels' convention: the distinct offsets of
    the inputs read at more than the centre (an array read only at the centre,
    such as the target an update accumulates into or the previous time level,
    per-point coefficients and tables along some axes only are not counted),
    where the IR lists its inputs;
    else the IR's own `points`, the union over every input (docs/stencil-ir.md)."""
    inputs = ir.get("inputs")
    if not isinstance(inputs, list) or not inputs:
        return ir.get("points")
    union = set()
    for a in inputs:
        if not isinstance(a, dict) or a.get("per_point_coefficient"):
            continue
        if "0" in (a.get("strides") or []):
            continue  # a table along some axes only (dx[i])
        offs = {tuple(o) for o in a.get("offsets") or [] if isinstance(o, list)}
        if offs and offs != {(0, 0, 0)}:
            union |= offs
    return len(union) if union else ir.get("points")


def reason_key(text):
    """A reason with its specifics (quoted code, parenthesised expressions) blanked,
    so that the same refusal on different kernels groups together."""
    t = re.sub(r"'[^']*'", "'…'", text)
    for _ in range(8):
        t = re.sub(r"\([^()]*\)", "\x00", t)
    t = re.sub(r"\b\d+(\.\d+)?\b", "N", t)
    return t.replace("\x00", "(…)").strip()


def load_json(path, what):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.exit("score-realapps: cannot read %s %s: %s" % (what, path, e))


def score_dir(dirname, labels, dump):
    """labels: the dir's scored labels; dump: its dump entries, or None when absent."""
    entries = list(dump or [])
    used = set()
    rows = []
    for lab in labels:
        matched = [i for i, e in enumerate(entries)
                   if base_name(e.get("kernel", "")) == lab["kernel"] and same_file(e.get("file"), lab["file"])]
        used.update(matched)
        rows.append((lab, [entries[i] for i in matched]))
    unlabelled = [e for i, e in enumerate(entries) if i not in used]

    res = collections.OrderedDict()
    res["labelled_kernels"] = len(labels)
    res["labelled_stencils"] = sum(1 for l in labels if l["stencil"])
    res["labelled_non_stencils"] = sum(1 for l in labels if not l["stencil"])
    res["in_dump"] = sum(1 for _, m in rows if m)
    for k in ("recognised", "right_footprint", "shape_checked", "shape_right", "false_positives",
              "temporal_labelled", "temporal_recognised", "unsure_stencils", "unsure_recognised"):
        res[k] = 0
    res["refusals_without_reason"] = sum(1 for e in entries
                                         if e.get("verdict") != "stencil" and not reason_texts(e))
    res["dump_entries"] = len(entries)
    missed, wrong, wrong_shape, fps = [], [], [], []
    for lab, m in rows:
        where = {"dir": lab["dir"], "kernel": lab["kernel"], "file": lab["file"]}
        if not lab["stencil"]:
            hits = [e for e in m if e.get("verdict") == "stencil"]
            if hits:
                res["false_positives"] += 1
                fps.append(dict(where, entries=[e.get("kernel") for e in hits], why=lab.get("why", "")))
            continue
        tb = bool(lab.get("temporal_blocking"))
        res["temporal_labelled"] += tb
        res["unsure_stencils"] += bool(lab.get("unsure"))
        if not m:
            reason = "no dump for this dir" if dump is None else "not in the dump"
            missed.append(dict(where, verdicts=[], reason=reason, instances=0))
            continue
        ok = [e for e in m if e.get("verdict") == "stencil" or (tb and reports_temporal(e))]
        if len(ok) != len(m):
            bad = [e for e in m if e not in ok]
            texts = reason_texts(bad[0]) or ["(no reason given)"]
            reason = texts[0]
            if len(m) > 1:
                reason = "%d of %d instantiations not stencil; %s: %s" % (
                    len(bad), len(m), bad[0].get("kernel"), reason)
            kinds = sorted({r.get("kind") for r in bad[0].get("reasons") or []
                            if isinstance(r, dict) and r.get("kind")})
            missed.append(dict(where, verdicts=sorted({e.get("verdict", "?") for e in bad}),
                               reason=reason, reason_key=reason_key(texts[0]), instances=len(m),
                               kinds=kinds))
            continue
        res["recognised"] += 1
        res["temporal_recognised"] += tb
        res["unsure_recognised"] += bool(lab.get("unsure"))
        irs = [e.get("ir") or (tb and (e.get("temporal_blocking") or {}).get("step")) or {}
               for e in ok]
        symbolic = lab.get("points") is None
        fields = ("dims",) if symbolic else ("dims", "radius", "points")
        got = [{f: (labelled_points(ir) if f == "points" else ir.get(f)) for f in fields}
               for ir in irs]
        want = {f: lab.get(f) for f in fields}
        if all(g == want for g in got):
            res["right_footprint"] += 1
        else:
            wrong.append(dict(where, label=want, ir=[dict(g, kernel=e.get("kernel")) for g, e in zip(got, ok)]))
        if lab.get("shape"):
            res["shape_checked"] += 1
            shapes = sorted({str(ir.get("shape")) for ir in irs})
            if shapes == [lab["shape"]]:
                res["shape_right"] += 1
            else:
                wrong_shape.append(dict(where, label=lab["shape"], ir=shapes,
                                        centre=lab.get("centre", True)))
    res["missed"] = missed
    res["wrong_footprint"] = wrong
    res["wrong_shape"] = wrong_shape
    res["false_positive_list"] = fps
    res["unlabelled_dump_entries"] = [
        {"dir": dirname, "kernel": e.get("kernel"), "file": e.get("file"), "verdict": e.get("verdict")}
        for e in unlabelled]
    return res


SHAPES = ("star", "box", "other")
DTYPES = ("float", "double", "template")


def check_labels(kernels):
    """Problems of the label list, one string each."""
    bad = []
    seen = set()
    for i, k in enumerate(kernels):
        where = "label %d (%s %s)" % (i, k.get("dir"), k.get("kernel"))
        for f, t in (("dir", str), ("file", str), ("kernel", str), ("why", str)):
            if not isinstance(k.get(f), t) or not k.get(f):
                bad.append("%s: %r must be a non-empty string" % (where, f))
        if not isinstance(k.get("line"), int) or k.get("line", 0) < 1:
            bad.append("%s: 'line' must be a positive integer" % where)
        if not isinstance(k.get("launched"), bool):
            bad.append("%s: 'launched' must be true or false" % where)
        key = (k.get("dir"), k.get("file"), k.get("kernel"))
        if key in seen:
            bad.append("%s: duplicate of an earlier label" % where)
        seen.add(key)
        if k.get("in_build", True) is False:
            if k.get("stencil") not in (True, False, None):
                bad.append("%s: 'stencil' must be true, false or null" % where)
            continue
        if not isinstance(k.get("stencil"), bool):
            bad.append("%s: 'stencil' must be true or false" % where)
            continue
        if not k["stencil"]:
            continue
        dims, pts, r, shape = k.get("dims"), k.get("points"), k.get("radius"), k.get("shape")
        if dims not in (1, 2, 3):
            bad.append("%s: 'dims' must be 1, 2 or 3" % where)
        if pts is None or r is None:
            if not (pts is None and k.get("points_expr")):
                bad.append("%s: a symbolic footprint needs points null and points_expr" % where)
        else:
            if not isinstance(pts, int) or pts < 2:
                bad.append("%s: 'points' must be an integer >= 2" % where)
            if not isinstance(r, int) or r < 1:
                bad.append("%s: 'radius' must be an integer >= 1" % where)
            if isinstance(pts, int) and isinstance(r, int) and dims in (1, 2, 3):
                if pts > (2 * r + 1) ** dims:
                    bad.append("%s: %d points do not fit in radius %d" % (where, pts, r))
                if shape == "box" and pts != (2 * r + 1) ** dims:
                    bad.append("%s: a box of radius %d in %dD has %d points" % (where, r, dims, (2 * r + 1) ** dims))
        if shape not in SHAPES and not (shape is None and pts is None):
            bad.append("%s: 'shape' must be one of %s" % (where, ", ".join(SHAPES)))
        if k.get("dtype") not in DTYPES:
            bad.append("%s: 'dtype' must be one of %s" % (where, ", ".join(DTYPES)))
        if not isinstance(k.get("outputs"), int) or k.get("outputs", 0) < 1:
            bad.append("%s: 'outputs' must be a positive integer" % where)
        if not isinstance(k.get("shared_memory"), bool):
            bad.append("%s: 'shared_memory' must be true or false" % where)
        if k.get("host_time_loop") not in (True, False, "unknown"):
            bad.append("%s: 'host_time_loop' must be true, false or \"unknown\"" % where)
    return bad


def label_counts(kernels):
    rows = collections.OrderedDict()
    for k in kernels:
        r = rows.setdefault(k["dir"], collections.Counter())
        if k.get("in_build", True) is False:
            r["not_in_build"] += 1
            continue
        r["kernels"] += 1
        r["stencils" if k.get("stencil") else "non_stencils"] += 1
        r["temporal_blocking"] += bool(k.get("stencil") and k.get("temporal_blocking"))
        r["unsure"] += bool(k.get("unsure"))
    return rows


def pct(a, b):
    return "%5.1f%%" % (100.0 * a / b) if b else "   - "


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--labels", default=os.path.join(here, "..", "test", "RealApps", "labels.json"))
    ap.add_argument("--results", help="directory with <dir>/ir.json per dev-set dir")
    ap.add_argument("--dump", action="append", default=[], metavar="DIR=IR.json")
    ap.add_argument("--dirs", help="comma-separated dirs to score (default: those with a dump)")
    ap.add_argument("--json", action="store_true", help="print the scores as JSON")
    ap.add_argument("--min-recall", type=float, help="exit 1 when recall (recognised/labelled) is below X")
    ap.add_argument("--min-exact", type=float, help="exit 1 when recall with the right footprint is below X")
    ap.add_argument("--check-labels", action="store_true", help="validate the labels and print them per dir")
    a = ap.parse_args(argv)

    labels = load_json(a.labels, "labels")
    kernels = labels.get("kernels") if isinstance(labels, dict) else None
    if not isinstance(kernels, list):
        sys.exit("score-realapps: %s has no \"kernels\" list" % a.labels)
    if a.check_labels:
        bad = check_labels(kernels)
        for b in bad:
            sys.stderr.write("score-realapps: %s\n" % b)
        cols = ("kernels", "stencils", "non_stencils", "temporal_blocking", "unsure", "not_in_build")
        sys.stdout.write("%-15s %s\n" % ("dir", " ".join("%12s" % c.replace("_", "-") for c in cols)))
        tot = collections.Counter()
        for d, r in label_counts(kernels).items():
            tot.update(r)
            sys.stdout.write("%-15s %s\n" % (d, " ".join("%12d" % r[c] for c in cols)))
        sys.stdout.write("%-15s %s\n" % ("total", " ".join("%12d" % tot[c] for c in cols)))
        return 1 if bad else 0

    by_dir = collections.OrderedDict()
    for k in kernels:
        for f in ("dir", "file", "kernel", "stencil"):
            if f not in k:
                sys.exit("score-realapps: a label lacks %r: %s" % (f, json.dumps(k)[:200]))
        by_dir.setdefault(k["dir"], [])
        if k.get("in_build", True) is not False:
            by_dir[k["dir"]].append(k)

    dumps = collections.OrderedDict()
    for spec in a.dump:
        if "=" not in spec:
            sys.exit("score-realapps: --dump wants DIR=FILE, got %r" % spec)
        d, path = spec.split("=", 1)
        dumps[d] = path
    if a.results:
        for d in by_dir:
            p = os.path.join(a.results, d, "ir.json")
            if d not in dumps and os.path.isfile(p):
                dumps[d] = p
    if a.dirs:
        dirs = [d for d in a.dirs.split(",") if d]
    else:
        dirs = [d for d in by_dir if d in dumps] + [d for d in dumps if d not in by_dir]
    if not dirs:
        sys.exit("score-realapps: nothing to score (no --dump, no RESULTS/<dir>/ir.json, no --dirs)")

    per_dir = collections.OrderedDict()
    for d in dirs:
        dump = None
        if d in dumps:
            doc = load_json(dumps[d], "dump")
            dump = doc.get("kernels") if isinstance(doc, dict) else None
            if not isinstance(dump, list):
                sys.exit("score-realapps: %s has no \"kernels\" list" % dumps[d])
        per_dir[d] = score_dir(d, by_dir.get(d, []), dump)

    tot = collections.OrderedDict()
    for r in per_dir.values():
        for k, v in r.items():
            if isinstance(v, int):
                tot[k] = tot.get(k, 0) + v
            else:
                tot.setdefault(k, []).extend(v)
    n = tot.get("labelled_stencils", 0)
    recall = tot["recognised"] / n if n else 1.0
    exact = tot["right_footprint"] / n if n else 1.0
    sure = n - tot["unsure_stencils"]
    summary = collections.OrderedDict([
        ("labelled_stencils", n), ("recognised", tot["recognised"]), ("recall", round(recall, 4)),
        ("right_footprint", tot["right_footprint"]), ("recall_exact", round(exact, 4)),
        ("recall_sure_labels", round((tot["recognised"] - tot["unsure_recognised"]) / sure, 4) if sure else 1.0),
        ("shape_right", tot["shape_right"]), ("shape_checked", tot["shape_checked"]),
        ("labelled_non_stencils", tot["labelled_non_stencils"]), ("false_positives", tot["false_positives"]),
        ("refusals_without_reason", tot["refusals_without_reason"]),
        ("temporal_labelled", tot["temporal_labelled"]), ("temporal_recognised", tot["temporal_recognised"]),
        ("not_in_dump", sum(1 for m in tot["missed"] if m["reason"] in ("not in the dump", "no dump for this dir"))),
    ])

    if a.json:
        repo = os.path.dirname(here)
        lab = os.path.abspath(a.labels)
        shown = os.path.relpath(lab, repo) if lab.startswith(repo + os.sep) else os.path.basename(lab)
        json.dump({"labels": shown,
                   "total": summary, "dirs": per_dir}, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        w = sys.stdout.write
        w("%-15s %8s %10s %8s %9s %9s %4s %9s %7s\n" % (
            "dir", "stencils", "recognised", "exact", "shape", "non-sten", "FP", "no-reason", "missing"))
        for d, r in per_dir.items():
            w("%-15s %8d %10d %8d %9s %9d %4d %9d %7d\n" % (
                d, r["labelled_stencils"], r["recognised"], r["right_footprint"],
                "%d/%d" % (r["shape_right"], r["shape_checked"]), r["labelled_non_stencils"],
                r["false_positives"], r["refusals_without_reason"],
                sum(1 for m in r["missed"] if m["reason"] in ("not in the dump", "no dump for this dir"))))
        w("total: %d labelled stencils; recognised %d (%s); right dims+radius+points %d (%s); shape %d/%d; "
          "false positives %d of %d non-stencils; refusals without a reason %d; temporal blocking %d/%d; "
          "recall on labels not marked unsure %s\n" % (
              n, tot["recognised"], pct(tot["recognised"], n).strip(), tot["right_footprint"],
              pct(tot["right_footprint"], n).strip(), tot["shape_right"], tot["shape_checked"],
              tot["false_positives"], tot["labelled_non_stencils"], tot["refusals_without_reason"],
              tot["temporal_recognised"], tot["temporal_labelled"],
              pct(tot["recognised"] - tot["unsure_recognised"], sure).strip()))
        if tot["missed"]:
            w("\nmissed stencils (%d):\n" % len(tot["missed"]))
            for m in tot["missed"]:
                w("  %s %s (%s) [%s]: %s\n" % (m["dir"], m["kernel"], m["file"],
                                               ",".join(m["verdicts"]) or "-", m["reason"]))
            groups = collections.Counter(m.get("reason_key", m["reason"]) for m in tot["missed"])
            w("\nmissed by reason:\n")
            for key, c in groups.most_common():
                w("  %3d  %s\n" % (c, key))
            # Typed reasons (fs-rewrite --dump-ir's {kind, text}): a kernel
            # counts under every kind it was refused for; 'alone' counts the
            # kernels for which that kind is the only one, which a recogniser
            # for that idiom alone would win.
            kinds = collections.Counter(k for m in tot["missed"] for k in m.get("kinds", []))
            if kinds:
                alone = collections.Counter(m["kinds"][0] for m in tot["missed"]
                                            if len(m.get("kinds", [])) == 1)
                w("\nmissed by kind (kernels; alone: the only kind):\n")
                for k, c in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])):
                    w("  %3d  %-18s alone %d\n" % (c, k, alone.get(k, 0)))
        if tot["wrong_footprint"]:
            w("\nrecognised with another footprint (%d):\n" % len(tot["wrong_footprint"]))
            for x in tot["wrong_footprint"]:
                irs = "; ".join("%s %s" % (g["kernel"], {k: v for k, v in g.items() if k != "kernel"})
                                for g in x["ir"][:3])
                w("  %s %s: label %s, IR %s\n" % (x["dir"], x["kernel"], x["label"], irs))
        if tot["wrong_shape"]:
            w("\nshape differs (%d):\n" % len(tot["wrong_shape"]))
            for x in tot["wrong_shape"]:
                w("  %s %s: label %s, IR %s%s\n" % (x["dir"], x["kernel"], x["label"], ",".join(x["ir"]),
                                                  "" if x["centre"] else " (label has no centre point)"))
        if tot["false_positive_list"]:
            w("\nfalse positives (%d):\n" % len(tot["false_positive_list"]))
            for x in tot["false_positive_list"]:
                w("  %s %s (%s): %s\n" % (x["dir"], x["kernel"], x["file"], x["why"]))
        if tot["unlabelled_dump_entries"]:
            w("\ndump entries without a label (%d):\n" % len(tot["unlabelled_dump_entries"]))
            for x in tot["unlabelled_dump_entries"]:
                w("  %s %s (%s): %s\n" % (x["dir"], x["kernel"], x["file"], x["verdict"]))

    def below(th, v):
        if th is None:
            return False
        return v < (th / 100.0 if th > 1 else th) - 1e-12
    if below(a.min_recall, recall) or below(a.min_exact, exact):
        sys.stderr.write("score-realapps: recall %.4f, exact %.4f below the minimum\n" % (recall, exact))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
