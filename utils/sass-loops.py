#!/usr/bin/env python3
"""Counts the instructions of each loop in `cuobjdump -sass` output.

    utils/sass-loops.py FILE.sass [NAME]

For every function (or only those whose name contains NAME), each loop,
the span from a backward branch's target to the branch, is printed with its
number of instructions, how many are floating-point (FFMA/FMUL/FADD), and
every opcode's count: predicates dropped; loads, stores and floating-point
opcodes keep their suffixes, the rest are cut at the first dot.
"""
import collections
import re
import sys


def functions(lines):
    """(name, [(address, instruction)]) per function, in listing order."""
    name, ins = None, []
    for line in lines:
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            if name is not None:
                yield name, ins
            name, ins = m.group(1), []
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", line)
        if m and name is not None:
            ins.append((int(m.group(1), 16), m.group(2)))
    if name is not None:
        yield name, ins


def opcode(text):
    op = re.sub(r"^@!?U?P\w+\s+", "", text).split()[0]
    if op.startswith(("LDG", "STG", "FFMA", "FMUL", "FADD")):
        return op
    return op.split(".")[0]


def loops(ins):
    for addr, text in ins:
        m = re.search(r"\bBRA\s+(0x[0-9a-f]+)", text)
        if m and int(m.group(1), 16) <= addr:
            start = int(m.group(1), 16)
            yield start, addr, collections.Counter(
                opcode(t) for a, t in ins if start <= a <= addr)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    want = sys.argv[2] if len(sys.argv) == 3 else ""
    for name, ins in functions(open(sys.argv[1]).read().split("\n")):
        if want not in name:
            continue
        print(f"function {name}")
        for start, end, ops in loops(ins):
            total = sum(ops.values())
            fp = sum(n for op, n in ops.items()
                     if op.startswith(("FFMA", "FMUL", "FADD")))
            print(f"loop {start:#x}-{end:#x}: {total} instr, FP {fp}, "
                  f"other {total - fp}")
            print("    " + ", ".join(f"{op}:{n}" for op, n in ops.most_common()))


if __name__ == "__main__":
    main()
