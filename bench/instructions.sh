#!/usr/bin/env bash
# Instructions per request, counted by callgrind: a yardstick that repeats to
# a few instructions in ten thousand, where timed pairs on a shared machine
# spread by ±20 %.
#
#   bench/instructions.sh [LINE [SHAPE [AMOUNT]]] -- MONKEYD...
#
#   bench/instructions.sh "SET q monkeys=%d" pipeline 20000 -- old/monkeyd .build/release/monkeyd
#
# LINE is a request (`%d` a counter, as in loadclient) or PING; SHAPE is
# single, pipeline or conns. single and pipeline send AMOUNT requests
# (default 20,000), one at a time or 100 at a time: a fixed number, so that
# what a pass of the loop costs is shared the same way in every run (a timed
# window answered 23,000 to 37,000 requests under valgrind, and the count
# spread by 4 %). conns is timed: loadclient's 50 connections for AMOUNT
# seconds (default 6). Each daemon gets a session q, stopped, and a
# state directory of its own; instrumentation is on only while the load
# runs, on every thread. `max_events` and `control_log_size` are set high so
# that no rewrite of the events file and no compaction falls in the window
# (each moves the count by a few hundred a request), and `sync_interval` so
# long that no sync does either: the storage thread encodes the events file
# at each sync, and whether one fell in the window moved the count by 400. Binaries are stripped of
# debug information first (valgrind cannot read Swift's DWARF 5).
set -euo pipefail
cd "$(dirname "$0")/.."
LINE=${1:-"SET q monkeys=%d"}
SHAPE=${2:-pipeline}
if [ "$SHAPE" = conns ]; then AMOUNT=${3:-6}; else AMOUNT=${3:-20000}; fi
while [ $# -gt 0 ] && [ "$1" != "--" ]; do shift; done
[ $# -gt 1 ] || { echo "usage: $0 [LINE [SHAPE [AMOUNT]]] -- MONKEYD..." >&2; exit 2; }
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
    printf 'max_events = 10000000\ncontrol_log_size = 1G\nsync_interval = 1h\n' > "$dir/monkeyd.conf"
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
    if [ "$SHAPE" = conns ] && [ "$LINE" = PING ]; then
        "$WORK/loadclient" ping "$dir/s.sock" conns "$AMOUNT" $pid > "$dir/client"
    elif [ "$SHAPE" = conns ]; then
        "$WORK/loadclient" request "$dir/s.sock" "$LINE" conns "$AMOUNT" $pid > "$dir/client"
    else
        python3 - "$dir/s.sock" "$LINE" "$SHAPE" "$AMOUNT" > "$dir/client" <<'EOF'
import socket, sys
path, line, shape, total = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
depth = 100 if shape == "pipeline" else 1
connection = socket.socket(socket.AF_UNIX)
connection.connect(path)
sent = 0
while sent < total:
    batch = []
    for _ in range(min(depth, total - sent)):
        sent += 1
        batch.append((line.replace("%d", str(sent % 9000 + 1))) + "\n")
    connection.sendall("".join(batch).encode())
    answers = b""
    while answers.count(b"\n") < len(batch):
        answers += connection.recv(65536)
print(f"requests={sent}")
EOF
    fi
    callgrind_control -i off $pid >/dev/null 2>&1
    callgrind_control -d $pid >/dev/null 2>&1
    kill $pid
    wait $pid 2>/dev/null || true
    python3 - "$daemon" "$dir" "$AMOUNT" <<'EOF'
import glob, re, sys
daemon, directory, amount = sys.argv[1], sys.argv[2], float(sys.argv[3])
client = open(f"{directory}/client").read()
counted = re.search(r"requests=([0-9]+)", client)
requests = float(counted.group(1)) if counted else float(re.search(r"rps=([0-9.]+)", client).group(1)) * amount
instructions = 0
for path in glob.glob(f"{directory}/callgrind.*"):
    for line in open(path):
        if line.startswith("totals:"):
            instructions += int(line.split()[1])
print(f"{daemon}: {requests:,.0f} requests, {instructions / requests:,.0f} instructions each")
EOF
done
