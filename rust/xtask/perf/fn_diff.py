#!/usr/bin/env python3
"""Self instructions per function, old against new, from two callgrind files recorded with
--toggle-collect on the benched closure (so only the closure's work is counted).

Usage: fn_diff.py OLD.cg NEW.cg [CALLS] [TOP]   (CALLS: benched calls in each file, default 40)
Functions are grouped by name (inlined code is charged to the function it was inlined into).
"""
import re
import subprocess
import sys
from collections import defaultdict

LINE = re.compile(r"^\s*([\d,]+) \([^)]*\)\s+(?:.*?\.(?:rs|S|c|h)|\?\?\?):(.*?)(?: \[[^\]]*\])?$")


def short(name):
    """strata_core::gen3d::terrain::Terrain::grid -> Terrain::grid (module paths moved between
    commits); a free function keeps its last segment."""
    if not name.startswith("strata_core::"):
        return name
    segs = name.split("::")
    for i, s in enumerate(segs[1:], 1):
        if s[:1].isupper() or s.startswith("<") or s.startswith("{"):
            return "::".join(segs[i:])
    return segs[-1]


def per_fn(path):
    out = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100", "--auto=no", path],
                         capture_output=True, text=True).stdout
    d = defaultdict(int)
    for line in out.splitlines():
        m = LINE.match(line)
        if m:
            d[short(m.group(2))] += int(m.group(1).replace(",", ""))
    return d


def main():
    old, new = per_fn(sys.argv[1]), per_fn(sys.argv[2])
    calls = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    top = int(sys.argv[4]) if len(sys.argv) > 4 else 25
    rows = [(new.get(k, 0) - old.get(k, 0), k) for k in set(old) | set(new)]
    rows.sort(key=lambda r: -abs(r[0]))
    print(f"{'old/call':>10} {'new/call':>10} {'diff/call':>10}  function")
    for diff, k in rows[:top]:
        print(f"{old.get(k, 0) / calls:10.0f} {new.get(k, 0) / calls:10.0f} {diff / calls:+10.0f}  {k[:110]}")
    print(f"{sum(old.values()) / calls:10.0f} {sum(new.values()) / calls:10.0f} "
          f"{(sum(new.values()) - sum(old.values())) / calls:+10.0f}  TOTAL")


if __name__ == "__main__":
    main()
