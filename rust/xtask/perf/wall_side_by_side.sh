#!/usr/bin/env bash
# Wall-clock medians of the same benches, the given commits' binaries (built by
# bisect_callgrind.sh into target-bisect/bin/SHA) run alternately, ROUNDS rounds (default 3):
# A B C, A B C, ... Prints, per commit and bench, the median over rounds of divan's median and
# the mean over the 4 bench chunks. Secondary to the instruction counts on a loaded machine.
#
#   rust/xtask/perf/wall_side_by_side.sh 1b2ebd6 6cc8982 a43bdb5
set -euo pipefail
repo=$(git rev-parse --show-toplevel)
bin=$repo/target-bisect/bin
rounds=${ROUNDS:-3}
log=$(mktemp)
for r in $(seq "$rounds"); do
    for sha in "$@"; do
        "$bin/$sha/chunk_pipeline" --bench strata | sed "s/^/$sha pipeline /" >>"$log"
        "$bin/$sha/collision" --bench mesher_collision_faces | sed "s/^/$sha collision /" >>"$log"
    done
done
python3 - "$log" "$@" <<'PY'
import re, statistics, sys
from collections import defaultdict
log, shas = sys.argv[1], sys.argv[2:]
unit = {"ns": 1e-3, "µs": 1.0, "ms": 1e3}
d = defaultdict(list)
group = None
for line in open(log):
    sha, kind, rest = line.split(" ", 2)
    m = re.match(r"[│├╰─ ]*(strata_worker|strata|mesher_collision_faces)\b", rest)
    if m:
        group = m.group(1)
        continue
    m = re.match(r"[│├╰─ ]*(\d)\s+\S+ \S+\s+│\s+\S+ \S+\s+│\s+([\d.]+) (ns|µs|ms)", rest)
    if m and group:
        d[(sha, group, int(m.group(1)))].append(float(m.group(2)) * unit[m.group(3)])
for g in ("strata", "strata_worker", "mesher_collision_faces"):
    for sha in shas:
        per = [statistics.median(d[(sha, g, i)]) for i in range(4) if d[(sha, g, i)]]
        if per:
            print(f"{g:24} {sha}  per chunk " + " / ".join(f"{v:.1f}" for v in per) +
                  f" µs  mean {statistics.mean(per):.1f} µs  (rounds: {len(d[(sha, g, 0)])})")
PY
rm -f "$log"
