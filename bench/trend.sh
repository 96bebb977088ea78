#!/usr/bin/env bash
# Where the many-sessions row goes over time: one daemon (empty
# configuration) types 10,000 sessions of 5 monkeys at 10 Hz for
# `loadclient typing`; from the end of the first fold of the entries
# journal on, each second's daemon CPU (ms), minor page faults and journal
# size (MiB), a fold being a second in which the journal shrank.
#
#   bench/trend.sh MONKEYD [SECONDS]        (default 120)
#
# Prints the seconds, then the daemon's CPU between folds (ms a second,
# the median of the seconds away from a fold), and what each fold added:
# the second the journal shrank and the one before (the fold runs, then
# removes the journal), less twice that median.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 MONKEYD [SECONDS]" >&2; exit 2; }
BINARY=$(realpath "$1")
SECONDS_EACH=${2:-120}
# shellcheck source=bench/daemon-lib.sh
. bench/daemon-lib.sh
start_monkeyd "$BINARY" "$WORK"
wait_for_socket "$WORK" "$DAEMON"
# The client types on past the samples; it is stopped with the daemon.
"$WORK/loadclient" typing "$WORK/sock" 10000 $((SECONDS_EACH + 300)) "$DAEMON" >/dev/null &
PIDS+=($!)
JOURNAL=$WORK/state/sessions/journal
journal_size() { stat -c %s "$JOURNAL" 2>/dev/null || echo 0; }
# The CPU ticks (utime + stime) and minor faults of the daemon.
counters() { awk '{ print $14 + $15, $10 }' "/proc/$DAEMON/stat"; }

# Until the first fold has ended (at most 180 s): the logs and the
# journal are then as they are in a daemon that has run a while.
last=$(journal_size)
for _ in $(seq 1800); do
    sleep 0.1
    size=$(journal_size)
    [ "$size" -lt "$last" ] && break
    last=$size
done
[ "$size" -lt "$last" ] || { echo "$0: no fold within 180 s" >&2; exit 1; }

TICKS=$(getconf CLK_TCK)
read -r cpu faults < <(counters)
last=$(journal_size)
for second in $(seq "$SECONDS_EACH"); do
    sleep 1
    read -r cpu_now faults_now < <(counters)
    size=$(journal_size)
    fold=0
    [ "$size" -lt "$last" ] && fold=1
    echo "$second $(((cpu_now - cpu) * 1000 / TICKS)) $((faults_now - faults)) $((size / 1048576)) $fold"
    cpu=$cpu_now
    faults=$faults_now
    last=$size
done | tee "$WORK/seconds" | awk 'BEGIN { print "second cpu_ms faults journal_MiB fold" } { print }'

python3 - "$WORK/seconds" <<'PY'
import statistics, sys
rows = [list(map(int, line.split())) for line in open(sys.argv[1])]
folds = [i for i, row in enumerate(rows) if row[4]]
near = {j for i in folds for j in (i - 1, i, i + 1)}
quiet = [row[1] for i, row in enumerate(rows) if i not in near]
base = statistics.median(quiet) if quiet else 0
added = [rows[i][1] + (rows[i - 1][1] if i > 0 else 0) - 2 * base for i in folds]
print(f"between folds: {base} ms a second ({base / 10:.1f} % of a core), "
      f"{statistics.median(row[2] for i, row in enumerate(rows) if i not in near)} faults a second")
print(f"folds: {len(folds)}, each adding {', '.join(map(str, added)) or '-'} ms; "
      f"over the {len(rows)} s: {sum(row[1] for row in rows) / len(rows) / 10:.2f} % of a core")
PY
