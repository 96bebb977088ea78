#!/usr/bin/env bash
# Benchmarks of durability: start-up time to READY=1 with a large state
# directory, and the CPU cost of syncing typed entries.
#
#   bench/durability.sh [BIN_DIR]      (default .build/release, else .build/debug)
#
# SESSIONS, ENTRIES, RATE (a list of entries/s) and MEASURE_SECONDS override
# the sizes.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-$( [ -x .build/release/monkeyd ] && echo .build/release || echo .build/debug )}
SESSIONS=${SESSIONS:-1000}
ENTRIES=${ENTRIES:-10000}
RATE=${RATE:-1000 10000}
MEASURED=${MEASURE_SECONDS:-10}
STATE=$(mktemp -d /tmp/monkeyd-bench-state.XXXXXX)
trap 'rm -rf "$STATE"' EXIT

echo "monkeyd: $BIN/monkeyd"
python3 bench/durability.py generate "$STATE" "$SESSIONS" "$ENTRIES"
echo "state: $SESSIONS sessions x $ENTRIES entries, $(du -sh "$STATE" | cut -f1)"
for run in 1 2 3; do
    echo "start-up to READY=1 (run $run, page cache warm after the first): $(python3 bench/durability.py startup "$BIN/monkeyd" "$STATE") s"
done
# CPU time is noisy on a shared machine: runs alternate, and the median counts.
for rate in $RATE; do
    declare -A runs=()
    for round in 1 2 3; do
        for sync in 1s 24h; do
            runs[$sync]+="$(python3 bench/durability.py cpu "$BIN/monkeyd" "$rate" "$sync" "$MEASURED") "
        done
    done
    for sync in 1s 24h; do
        median=$(tr ' ' '\n' <<<"${runs[$sync]}" | grep . | sort -n | sed -n 2p)
        echo "CPU at $rate entries/s, sync_interval=$sync: median $median % of one core (runs: ${runs[$sync]})"
    done
done
