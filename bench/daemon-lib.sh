# Sourced by bench/pair.sh and bench/trend.sh: a work directory removed at
# exit with every process started through `start_monkeyd` (and any added
# to PIDS), the load client built into it, and a daemon started on a
# directory of its own (empty configuration, no NOTIFY_SOCKET).
WORK=$(mktemp -d "/tmp/monkeyd-$(basename "$0" .sh).XXXXXX")
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
gcc -O2 -o "$WORK/loadclient" bench/loadclient.c

# start_monkeyd BINARY DIRECTORY: the daemon on DIRECTORY/sock and
# DIRECTORY/state, answering once its socket is there; its pid in DAEMON.
start_monkeyd() {
    mkdir -p "$2/state"
    : >"$2/monkeyd.conf"
    env -u NOTIFY_SOCKET "$1" --socket "$2/sock" --state-dir "$2/state" --config "$2/monkeyd.conf" \
        >/dev/null 2>&1 &
    DAEMON=$!
    PIDS+=("$DAEMON")
}

# wait_for_socket DIRECTORY PID: until the daemon's socket is there (30 s at most).
wait_for_socket() {
    for _ in $(seq 300); do
        [ -S "$1/sock" ] && return 0
        kill -0 "$2" 2>/dev/null || { echo "$0: monkeyd exited at start" >&2; exit 1; }
        sleep 0.1
    done
    echo "$0: no socket in $1 after 30 s" >&2
    exit 1
}
