"""Writes a copy of a JSON document with members changed, for the bad-input
tests: ir-edit.py BASE EDIT... where EDIT is PATH=JSON (set), PATH+=JSON
(append to an array) or PATH! (delete), and PATH is spelled as the tools'
messages spell it: inputs[0].offsets[3][1]."""
import json
import re
import sys


def walk(doc, path):
    parts = re.findall(r"[^.\[\]]+|\[\d+\]", path)
    keys = [int(p[1:-1]) if p.startswith("[") else p for p in parts]
    node = doc
    for k in keys[:-1]:
        node = node[k]
    return node, keys[-1]


doc = json.load(open(sys.argv[1]))
for edit in sys.argv[2:]:
    if edit.endswith("!"):
        node, key = walk(doc, edit[:-1])
        del node[key]
    elif "+=" in edit:
        path, value = edit.split("+=", 1)
        node, key = walk(doc, path)
        node[key].append(json.loads(value))
    else:
        path, value = edit.split("=", 1)
        node, key = walk(doc, path)
        node[key] = json.loads(value)
json.dump(doc, sys.stdout)
