#!/usr/bin/env bash
# The many-sessions row of two builds run at once: each daemon (empty
# configuration, its own state directory) types 10,000 sessions of 5
# monkeys at 10 Hz for `loadclient typing`, 50 of them followed, over whole
# cycles of typing and folding the entries journal. Run at once, the two
# share the machine's weather, which moves a build's figure by a tenth from
# run to run, as much as most changes.
#
#   bench/pair.sh OLD_MONKEYD NEW_MONKEYD [ROUNDS [SECONDS]]   (3 rounds of 60 s)
#
# Prints each round's CPU % of one core and tick lateness p99 of both, then
# the median CPU of each and of the rounds' new/old ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: $0 OLD_MONKEYD NEW_MONKEYD [ROUNDS [SECONDS]]" >&2; exit 2; }
OLD=$(realpath "$1")
NEW=$(realpath "$2")
ROUNDS=${3:-3}
SECONDS_EACH=${4:-60}
# shellcheck source=bench/daemon-lib.sh
. bench/daemon-lib.sh

for round in $(seq "$ROUNDS"); do
    PIDS=()
    start_monkeyd "$OLD" "$WORK/old$round"
    start_monkeyd "$NEW" "$WORK/new$round"
    wait_for_socket "$WORK/old$round" "${PIDS[0]}"
    wait_for_socket "$WORK/new$round" "${PIDS[1]}"
    clients=()
    for index in 0 1; do
        build=old
        [ "$index" = 1 ] && build=new
        directory="$WORK/$build$round"
        "$WORK/loadclient" typing "$directory/sock" 10000 "$SECONDS_EACH" "${PIDS[$index]}" \
            "journal=$directory/state/sessions/journal" >"$directory/figures" &
        clients+=($!)
    done
    wait "${clients[@]}"
    kill "${PIDS[@]}"
    wait "${PIDS[@]}" 2>/dev/null || true
    for build in old new; do
        echo "round $round $build $(cat "$WORK/$build$round/figures")" | tee -a "$WORK/rounds"
    done
    rm -rf "$WORK/old$round" "$WORK/new$round"
done

python3 - "$WORK/rounds" <<'PY'
import re, statistics, sys
cpu = {"old": {}, "new": {}}
for line in open(sys.argv[1]):
    _, round_, build, rest = line.split(" ", 3)
    cpu[build][round_] = float(re.search(r"cpu_percent=([0-9.]+)", rest).group(1))
ratios = [cpu["new"][r] / cpu["old"][r] for r in cpu["old"] if r in cpu["new"]]
print(f"CPU % of one core, median: old {statistics.median(cpu['old'].values()):.2f}, "
      f"new {statistics.median(cpu['new'].values()):.2f}; new/old {statistics.median(ratios):.3f} "
      f"(rounds: {', '.join(f'{r:.3f}' for r in ratios)})")
PY
