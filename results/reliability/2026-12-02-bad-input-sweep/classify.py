import json, os, re, collections
rows = json.load(open("./replayed.json"))
def named(r, err):
    # The message names the input file (its base name), the option or the field.
    a = r["args"]
    keys = []
    for i, x in enumerate(a):
        if x in ("--stencil-file", "--tuning-results", "--knowledge") and i + 1 < len(a):
            keys.append(os.path.basename(a[i + 1]))
        if x.startswith("--") and x not in ("--emit-dir", "--strategy", "--work-dir", "--stencil", "--dump-ir", "--output-dir", "--app", "--emit-patch", "--nvcc", "--arch"):
            keys.append(x)
    if r["tool"] == "fs-tune":
        keys.append("manifest.json")
    return any(k and k in err for k in keys)
def verdict(r, rc, err):
    if rc >= 128: return "crash"
    if rc == 0: return "accepted"
    return "clear" if named(r, err) else "unclear"
stats = collections.Counter()
table = []
for r in rows:
    new = verdict(r, r["rc"], r["err"])
    if r["rc"] == 0:
        kind = "good"   # a control the tools accept
    else:
        kind = "bad"
    old = verdict(r, r["old"]["rc"], r["old"]["err"]) if r["old"] else "not replayed"
    table.append((kind, r["tool"], new, old, " ".join(r["args"])[:140], r["old"]["err"][:160].replace("\n"," ") if r["old"] else ""))
for k in table:
    stats[(k[0], k[1], "new", k[2])] += 1
    stats[(k[0], k[1], "old", k[3])] += 1
for k, v in sorted(stats.items()):
    print(k, v)
json.dump(table, open("./table.json", "w"), indent=0)
