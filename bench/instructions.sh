#!/usr/bin/env bash
# Instructions per request, counted by callgrind: a yardstick that repeats to
# within 1 %, where timed pairs on a shared machine spread by ±20 %.
#
#   bench/instructions.sh [LINE [SHAPE [SECONDS]]] -- MONKEYD...
#
#   bench/instructions.sh "SET q monkeys=%d" pipeline 6 -- old/monkeyd .build/release/monkeyd
#
# LINE is a request (`%d` a counter, as in loadclient) or PING; SHAPE is
# single, pipeline or conns. Each daemon gets a session q, stopped, and a
# state directory of its own; instrumentation is on only while the load
# runs, on every thread. `max_events` and `control_log_size` are set high so
# that no rewrite of the events file and no compaction falls in the window:
# each moves the count by a few hundred a request. Binaries are stripped of
# debug information first (valgrind cannot read Swift's DWARF 5).
set -euo pipefail
cd "$(dirname "$0")/.."
LINE=${1:-"SET q monkeys=%d"}
SHAPE=${2:-pipeline}
SECONDS_MEASURED=${3:-6}
while [ $# -gt 0 ] && [ "$1" != "--" ]; do shift; done
[ $# -gt 1 ] || { echo "usage: $0 [LINE [SHAPE [SECONDS]]] -- MONKEYD..." >&2; exit 2; }
shift
for tool in valgrind callgrind_control gcc python3; do
    command -v $tool >/dev/null || { echo "$0: needs $tool (apt-get install valgrind gcc python3)" >&2; exit 2; }
done
WORK=$(mktemp -d /var/tmp/monkeyd-instructions.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
gcc -O2 -o "$WORK/loadclient" bench/loadclient.c

for daemon in "$@"; do
    dir="$WORK/$(date +%s%N)"
    mkdir -p "$dir"
    strip -g -o "$dir/monkeyd" "$daemon"
    printf 'max_events = 10000000\ncontrol_log_size = 1G\n' > "$dir/monkeyd.conf"
    valgrind --tool=callgrind --callgrind-out-file="$dir/callgrind.%p" --dump-line=no --instr-atstart=no \
        "$dir/monkeyd" --socket "$dir/s.sock" --state-dir "$dir/state" --config "$dir/monkeyd.conf" \
        >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 400); do [ -S "$dir/s.sock" ] && break; sleep 0.05; done
    python3 - "$dir/s.sock" <<'EOF'
import socket, sys
connection = socket.socket(socket.AF_UNIX)
connection.connect(sys.argv[1])
connection.sendall(b"START q interval=1h\nSTOP q\nPING\n")
answers = b""
while answers.count(b"\n") < 3:
    answers += connection.recv(4096)
EOF
    callgrind_control -i on $pid >/dev/null 2>&1
    callgrind_control -z $pid >/dev/null 2>&1
    if [ "$LINE" = PING ]; then
        "$WORK/loadclient" ping "$dir/s.sock" "$SHAPE" "$SECONDS_MEASURED" $pid > "$dir/client"
    else
        "$WORK/loadclient" request "$dir/s.sock" "$LINE" "$SHAPE" "$SECONDS_MEASURED" $pid > "$dir/client"
    fi
    callgrind_control -i off $pid >/dev/null 2>&1
    callgrind_control -d $pid >/dev/null 2>&1
    kill $pid
    wait $pid 2>/dev/null || true
    python3 - "$daemon" "$dir" "$SECONDS_MEASURED" <<'EOF'
import glob, re, sys
daemon, directory, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
client = open(f"{directory}/client").read()
requests = float(re.search(r"rps=([0-9.]+)", client).group(1)) * seconds
instructions = 0
for path in glob.glob(f"{directory}/callgrind.*"):
    for line in open(path):
        if line.startswith("totals:"):
            instructions += int(line.split()[1])
print(f"{daemon}: {requests:,.0f} requests, {instructions / requests:,.0f} instructions each")
EOF
done
