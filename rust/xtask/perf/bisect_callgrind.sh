#!/usr/bin/env bash
# Instructions per chunk (callgrind) of the chunk_pipeline bench's `strata` (generation + mesh)
# and `strata_worker` (the worker's whole chunk) closures, and of the collision bench's
# `mesher_collision_faces`, at the given commits; the collision bench's triangle counts per chunk.
# Deterministic whatever the machine's load: same binary + input = same count. (Under valgrind
# the CPU has no AVX-512, so the AVX2 builds are the ones counted.)
#
#   rust/xtask/perf/bisect_callgrind.sh COMMIT...        # build (if needed) and count
#   WALL=1 rust/xtask/perf/bisect_callgrind.sh A B       # then wall-clock medians, A/B alternated
#
# One detached worktree ($BISECT_TREE, default /tmp/strata-bisect) is checked out at each commit
# in turn and built into one target dir ($BISECT_TARGET, default target-bisect/shared), so
# registry dependencies build once; the bench binaries are copied to target-bisect/bin/SHA/.
set -euo pipefail
repo=$(git rev-parse --show-toplevel)
tree=${BISECT_TREE:-/tmp/strata-bisect}
target=${BISECT_TARGET:-$repo/target-bisect/shared}
out=$repo/target-bisect
samples=${SAMPLES:-10}
here=$(dirname "$(readlink -f "$0")")
[ -d "$tree" ] || git -C "$repo" worktree add --detach "$tree" HEAD >/dev/null

build() { # sha -> binaries in $out/bin/sha
    local sha=$1 dir=$out/bin/$1
    [ -x "$dir/chunk_pipeline" ] && [ -x "$dir/collision" ] && return
    git -C "$tree" checkout -q --detach "$sha"
    mkdir -p "$dir"
    (cd "$tree" && CARGO_TARGET_DIR=$target nice -n 10 cargo bench -p strata-core --bench chunk_pipeline \
        --bench collision --no-run 2>&1) | tee "$dir/build.log" | grep -E '^(error|warning: unused)' || true
    for b in chunk_pipeline collision; do
        cp "$(sed -n "s|.*Executable benches/$b.rs (\(.*\))|\1|p" "$dir/build.log" | tail -1)" "$dir/$b"
    done
}

count() { # sha -> one line of results
    local sha=$1 dir=$out/bin/$1
    # sample_size 1: every sample is one call of the benched closure; divan inlines the closure
    # into its per-sample task (divan::thread_pool::TaskShared<F>::new::call), whose inclusive
    # cost per call is one chunk (plus two Instant::now, ~60 instructions).
    local run
    for run in "strata --skip strata_worker" strata_worker; do
        valgrind --tool=callgrind --callgrind-out-file="$dir/${run%% *}.cg" "$dir/chunk_pipeline" --bench \
            $run --sample-count "$samples" --sample-size 1 >/dev/null 2>"$dir/${run%% *}.vg"
    done
    valgrind --tool=callgrind --callgrind-out-file="$dir/collision.cg" "$dir/collision" --bench \
        mesher_collision_faces --sample-count "$samples" --sample-size 1 >"$dir/collision.txt" 2>"$dir/collision.vg"
    echo "== $sha $(git -C "$repo" log -1 --format='%cd %s' --date=format:'%m-%d %H:%M' "$sha" | cut -c1-90)"
    for run in strata strata_worker collision; do
        printf '%-14s ' "$run"
        python3 "$here/callgrind_calls.py" "$dir/$run.cg" 'TaskShared<F>::new::call$' | cut -f2-
    done
    grep '^triangles' "$dir/collision.txt" | tr '\n' ' '; echo
}

for sha in "$@"; do
    sha=$(git -C "$repo" rev-parse --short=7 "$sha")
    build "$sha"
    count "$sha" | tee -a "$out/results.txt"
done
