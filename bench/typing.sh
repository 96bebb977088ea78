#!/usr/bin/env bash
# The typing kernel on one thread beside the plain C loop, in one run:
# characters typed per second of CPU (each process's own CPU time, so that
# time taken by other load on a shared machine is not counted), ROUNDS
# rounds alternating the programs, then the median of each.
#
#   bench/typing.sh [ROUNDS [SECONDS]]       timed (default 5 rounds of 1 s)
#   bench/typing.sh --instructions           instructions per character (callgrind)
#
# Shapes: see Sources/bench-typing/main.swift. The C loop
# (bench/typing-reference.c) types entries of 10,000 letters with one
# wyrand draw per character (Lemire's method, exact) and memmem for
# "to be or not to be"; c-lanes takes four letters from each draw
# (16-bit lanes, slightly biased: a bound, not a rival).
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
SHAPES=(unseeded seeded unseeded-searched seeded-searched unseeded-1m unseeded-dropped binary greek)
WORK=$(mktemp -d /tmp/monkeyd-typing.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
$SWIFT build -c release --product bench-typing >&2
gcc -O2 -o "$WORK/typing-reference" bench/typing-reference.c
KERNEL=.build/release/bench-typing

if [ "${1:-}" = --instructions ]; then
    command -v valgrind >/dev/null || { echo "$0: needs valgrind" >&2; exit 2; }
    # valgrind cannot read Swift's DWARF 5: strip it first.
    strip -g -o "$WORK/bench-typing" "$KERNEL"
    count() {  # program args... -> "instructions characters"
        valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" "$@" >"$WORK/out" 2>/dev/null
        local ir
        ir=$(awk '/^(summary|totals):/ {print $2; exit}' "$WORK/cg.out")
        echo "$ir $(sed -E 's/.*\(([0-9]+) characters.*/\1/' "$WORK/out")"
    }
    read -r startup _ < <(count "$WORK/bench-typing" --batches 0 unseeded)
    for shape in "${SHAPES[@]}"; do
        batches=10
        [ "$shape" = unseeded-1m ] && batches=10
        [ "$shape" = unseeded-dropped ] && batches=1
        read -r ir characters < <(count "$WORK/bench-typing" --batches $batches "$shape")
        python3 -c "import sys; i,s,c=map(int,sys.argv[2:]); print(f'{sys.argv[1]:20} {(i-s)/c:6.2f} instructions per character')" \
            "$shape" "$ir" "$startup" "$characters"
    done
    for mode in exact lanes; do
        read -r ir characters < <(count "$WORK/typing-reference" $mode 0.5)
        python3 -c "import sys; i,c=map(int,sys.argv[2:]); print(f'{sys.argv[1]:20} {i/c:6.2f} instructions per character')" \
            "c-$mode" "$ir" "$characters"
    done
    exit 0
fi

ROUNDS=${1:-5}
SECONDS_EACH=${2:-1}
for round in $(seq "$ROUNDS"); do
    "$WORK/typing-reference" exact "$SECONDS_EACH"
    "$KERNEL" --seconds "$SECONDS_EACH" "${SHAPES[@]}"
    "$WORK/typing-reference" lanes "$SECONDS_EACH"
done | tee "$WORK/rounds" >&2
python3 - "$WORK/rounds" <<'PY'
import collections, statistics, sys
rates = collections.defaultdict(list)
for line in open(sys.argv[1]):
    name, rate = line.split()[:2]
    rates[name].append(int(rate))
print(f"{'shape':20} {'median':>8} {'min':>6} {'max':>6}  M characters per CPU-second")
for name, values in rates.items():
    print(f"{name:20} {statistics.median(values):8.0f} {min(values):6} {max(values):6}")
PY
