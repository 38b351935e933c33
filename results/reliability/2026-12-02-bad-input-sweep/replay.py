import json, os, subprocess, sys, re
OLD = os.environ["OLD_BIN"]  # the tools built from the commit before this work
rows = [json.loads(l) for l in open("./new.jsonl")]
out = []
for r in rows:
    rec = dict(r)
    if r["tool"] == "fs-rewrite" or not os.path.exists(os.path.join(OLD, r["tool"])):
        rec["old"] = None
    else:
        env = {k: v for k, v in os.environ.items() if not k.startswith("FS_")}
        env.update(r["env"])
        try:
            p = subprocess.run([os.path.join(OLD, r["tool"])] + r["args"], cwd=r["cwd"], env=env,
                               capture_output=True, text=True, errors="replace", timeout=120)
            rc = p.returncode
            rec["old"] = {"rc": rc if rc >= 0 else 128 - rc, "err": p.stderr[:400]}
        except subprocess.TimeoutExpired:
            rec["old"] = {"rc": 124, "err": "timeout"}
    out.append(rec)
json.dump(out, open("./replayed.json", "w"), indent=1)
