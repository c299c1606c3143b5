#!/usr/bin/env bash
# Wall-clock medians of one chunk_pipeline bench (BENCH, default strata), the binaries in the
# given directories (each holding a `chunk_pipeline`) run alternately ROUNDS times (default 5):
# per case the median over rounds of divan's median of 30 samples, and its ratio to the first.
#
#   BENCH=generate_area ROUNDS=5 rust/xtask/perf/wall_benches.sh bin/05456a9 bin/HEAD
set -euo pipefail
rounds=${ROUNDS:-5}
bench=${BENCH:-strata}
log=$(mktemp)
for r in $(seq "$rounds"); do
  for n in "$@"; do
    $n/chunk_pipeline --bench "$bench" --sample-count 30 | sed "s/^/$n /" >>"$log"
  done
done
python3 - "$log" "$bench" "$@" <<'PY'
import re, statistics, sys
from collections import defaultdict
log, bench, names = sys.argv[1], sys.argv[2], sys.argv[3:]
unit = {"ns": 1e-3, "µs": 1.0, "ms": 1e3}
d = defaultdict(list); group=None
for line in open(log):
    n, rest = line.split(" ", 1)
    m = re.match(r"[│├╰─ ]*(strata_worker|strata|generate_area|mesh_area|worker_area)\b", rest)
    if m: group = m.group(1); continue
    m = re.match(r"[│├╰─ ]*(\S+)\s+\S+ \S+\s+│\s+\S+ \S+\s+│\s+([\d.]+) (ns|µs|ms)", rest)
    if m and group == bench: d[(n, m.group(1))].append(float(m.group(2)) * unit[m.group(3)])
keys = sorted({k for (n0, k) in d if n0 == names[0]})
base = names[0]
for n in names:
    per = [statistics.median(d[(n, k)]) for k in keys if d[(n, k)]]
    rat = [statistics.median(d[(n, k)]) / statistics.median(d[(base, k)]) for k in keys if d[(n, k)]]
    print(f"{bench} {n:6} " + " / ".join(f"{v:.1f}" for v in per) + f"  mean {statistics.mean(per):.1f} µs  ratio to {base} " + " / ".join(f"{r:.3f}" for r in rat) + f"  (rounds {len(d[(n, keys[0])])})")
PY
