#!/usr/bin/env python3
"""Instruction counts per basic block of one kernel in `cuobjdump -sass`
output, for the blocks that load (6 or more global or shared loads): what a
step of a z-marching loop costs. A block that branches back to itself or
earlier is marked LOOP. Per block: instructions, global loads and stores,
FP32 arithmetic (FFMA, FADD, FMUL), then the other opcodes by count.

  nvcc -O3 -std=c++17 -arch=sm_90 -cubin -o k.cubin cand_0.cu
  cuobjdump -sass k.cubin > k.sass
  scripts/sass-blocks.py k.sass fs_cand_0_kernelIiE
"""
import re
import sys

FP = ("FFMA", "FADD", "FMUL")
BRANCH = re.compile(r"\bBRA\b.*?(0x[0-9a-f]+)")


def function(lines, name):
    """The lines of the first function whose header mentions name."""
    start = next(i for i, l in enumerate(lines)
                 if "Function :" in l and name in l)
    end = next((j for j in range(start + 1, len(lines))
                if "Function :" in lines[j]), len(lines))
    return lines[start:end]


def blocks(lines):
    """(address, instruction) lists split at branch targets and after
    branches and exits."""
    ins = []
    for l in lines:
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", l)
        if m:
            ins.append((int(m.group(1), 16), m.group(2)))
    targets = {int(m.group(1), 16) for _, t in ins
               for m in [BRANCH.search(t)] if m}
    out, cur = [], []
    for a, t in ins:
        if a in targets and cur:
            out.append(cur)
            cur = []
        cur.append((a, t))
        if re.search(r"\b(BRA|EXIT)\b", t):
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as f:
        lines = f.read().split("\n")
    for b in blocks(function(lines, sys.argv[2])):
        ops = {}
        for _, t in b:
            op = re.sub(r"^@!?U?P\w+\s+", "", t).split()[0].split(".")[0]
            ops[op] = ops.get(op, 0) + 1
        if ops.get("LDG", 0) < 6 and ops.get("LDS", 0) < 6:
            continue
        loop = any(int(m.group(1), 16) <= b[0][0] for _, t in b
                   for m in [BRANCH.search(t)] if m)
        other = sorted(((k, v) for k, v in ops.items()
                        if k not in FP + ("LDG", "STG")), key=lambda x: -x[1])
        print("%05x%s n=%d ldg=%d stg=%d fp=%d %s" % (
            b[0][0], " LOOP" if loop else "", len(b), ops.get("LDG", 0),
            ops.get("STG", 0), sum(ops.get(k, 0) for k in FP),
            " ".join("%s=%d" % kv for kv in other)))


if __name__ == "__main__":
    main()
