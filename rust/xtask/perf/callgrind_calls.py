#!/usr/bin/env python3
"""Instructions per call of the functions whose names match a regex, from a callgrind output file.

Usage: callgrind_calls.py CALLGRIND_OUT REGEX [REGEX ...]

For each regex: the calls into matching functions from functions that do not match it (so a
recursive or nested match is not counted twice), their number and their inclusive instruction
count (Ir), and Ir per call. Deterministic for the same binary and input, whatever the load.
"""
import re
import sys


def parse(path):
    names = {}
    calls = []  # (caller, callee, count, inclusive Ir)
    fn = callee = None
    pending = None

    def name(kind_value):
        m = re.match(r"\((\d+)\)(?: (.*))?", kind_value)
        if not m:
            return kind_value
        if m.group(2) is not None:
            names[m.group(1)] = m.group(2)
        return names.get(m.group(1), m.group(1))

    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("fn="):
                fn = name(line[3:])
            elif line.startswith("cfn="):
                callee = name(line[4:])
            elif line.startswith("calls="):
                pending = int(line[6:].split()[0])
            elif pending is not None and line and (line[0].isdigit() or line[0] in "+-*"):
                parts = line.split()
                ir = int(parts[1]) if len(parts) > 1 else 0
                calls.append((fn, callee, pending, ir))
                pending = None
    return calls


def main():
    path, patterns = sys.argv[1], sys.argv[2:]
    calls = parse(path)
    for p in patterns:
        rx = re.compile(p)
        n = ir = 0
        for caller, callee, count, cost in calls:
            if callee and rx.search(callee) and not (caller and rx.search(caller)):
                n += count
                ir += cost
        per = ir / n if n else 0
        print(f"{p}\tcalls={n}\tIr={ir}\tIr/call={per:.0f}")


if __name__ == "__main__":
    main()
