#!/usr/bin/env python3
"""Counts the instructions of each loop in `cuobjdump -sass` output.

    utils/sass-loops.py FILE.sass [FIRST_LINE [LAST_LINE]]

A loop is the span from a backward branch's target to the branch. For each
one it prints the number of instructions, how many are floating-point
(FFMA/FMUL/FADD), and every opcode's count (predicates dropped; loads,
stores and floating-point opcodes keep their suffixes, the rest are cut at
the first dot). FIRST_LINE and LAST_LINE, the line numbers `grep -n 'Function :'`
prints for a function's header and the next one's, restrict it to that
function of a file with several.
"""
import collections
import re
import sys


def instructions(lines):
    for line in lines:
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
        if m:
            yield int(m.group(1), 16), m.group(2).strip()


def opcode(text):
    op = re.sub(r"^@!?U?P\w+\s+", "", text).split()[0]
    if op.startswith(("LDG", "STG", "FFMA", "FMUL", "FADD")):
        return op
    return op.split(".")[0]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    lines = open(sys.argv[1]).read().split("\n")
    first = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    last = int(sys.argv[3]) if len(sys.argv) > 3 else len(lines)
    ins = list(instructions(lines[first:last]))
    for addr, text in ins:
        m = re.search(r"BRA\s+`?\(?(0x[0-9a-f]+)", text)
        if not m or int(m.group(1), 16) > addr:
            continue
        start = int(m.group(1), 16)
        ops = collections.Counter(opcode(t) for a, t in ins if start <= a <= addr)
        total = sum(ops.values())
        fp = sum(n for op, n in ops.items() if op.startswith(("FFMA", "FMUL", "FADD")))
        print(f"loop {start:#x}-{addr:#x}: {total} instr, FP {fp}, other {total - fp}")
        print("    " + ", ".join(f"{op}:{n}" for op, n in ops.most_common()))


if __name__ == "__main__":
    main()
