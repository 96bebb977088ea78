#!/usr/bin/env python3
"""Benchmarks of monkeyd's durability (see durability.sh).

  durability.py generate DIR SESSIONS ENTRIES   write a state directory directly
  durability.py startup MONKEYD DIR             seconds from exec to READY=1
  durability.py cpu MONKEYD RATE SYNC SECONDS   CPU share of a daemon typing RATE entries/s
  durability.py fold MONKEYD [SESSIONS ENTRIES]  RSS before, high-water during and RSS after
                                                a fold of a full 64 MiB entries journal; then
                                                the high-water and RSS of a start after a crash

The generator writes the files in monkeyd's formats (see monkeyd(8),
DURABILITY): NAME.state, text ending in a CRC-32C, and NAME.entries,
checksummed records.
"""
import os
import random
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

TABLE = []
for byte in range(256):
    crc = byte
    for _ in range(8):
        crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    TABLE.append(crc)


def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    for byte in data:
        crc = TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def entries_file(count, monkeys=1):
    rng = random.Random(2026)
    out = bytearray(b"MKYENT\x00\x01")
    for n in range(1, count + 1):
        text = bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz") for _ in range(monkeys))
        payload = struct.pack("<QQB", n, n, 0) + text
        length = struct.pack("<I", len(payload))
        out += length + struct.pack("<I", crc32c(payload, crc32c(length))) + payload
    return bytes(out)


def state_file(name, count):
    lines = [
        "monkeyd-session 1", f"name={name}", "state=stopped", "monkeys=1", "interval=100ms",
        "alphabet=abcdefghijklmnopqrstuvwxyz", "target=", f"next_id={count + 1}",
        f"next_number={count + 1}", f"typed={count}", "hits=0", "best_length=0",
        f"reserved_id={count + 1}", f"reserved_number={count + 1}",
    ]
    body = ("\n".join(lines) + "\n").encode()
    return body + f"checksum={crc32c(body):08x}\n".encode()


def generate(directory, sessions, entries):
    sessions_dir = os.path.join(directory, "sessions")
    os.makedirs(sessions_dir, exist_ok=True)
    template = entries_file(entries)
    for index in range(sessions):
        name = f"bench-{index:05d}"
        with open(os.path.join(sessions_dir, name + ".entries"), "wb") as f:
            f.write(template)
        with open(os.path.join(sessions_dir, name + ".state"), "wb") as f:
            f.write(state_file(name, entries))


class Daemon:
    """monkeyd on a temporary socket, awaited on its own NOTIFY_SOCKET."""

    def __init__(self, monkeyd, state, config=""):
        self.scratch = tempfile.mkdtemp(prefix="monkeyd-bench.")
        self.socket = os.path.join(self.scratch, "monkeyd.sock")
        notify_path = os.path.join(self.scratch, "notify.sock")
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notify.bind(notify_path)
        conf = os.path.join(self.scratch, "monkeyd.conf")
        with open(conf, "w") as f:
            f.write(config)
        env = dict(os.environ, NOTIFY_SOCKET=notify_path)
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            [monkeyd, "--socket", self.socket, "--state-dir", state, "--config", conf],
            env=env, stderr=open(os.environ["BENCH_STDERR"], "w") if "BENCH_STDERR" in os.environ else subprocess.DEVNULL)
        self.notify.settimeout(300)
        while b"READY=1" not in self.notify.recv(4096).split(b"\n"):
            pass
        self.ready_after = time.monotonic() - self.started

    def request(self, line):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.connect(self.socket)
            s.sendall(line.encode() + b"\n")
            data = b""
            while not (data.endswith(b"\n") and (data.split(b"\n")[-2].startswith((b"OK", b"ERR")))):
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
            return data.decode()

    def cpu_seconds(self):
        with open(f"/proc/{self.process.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self, kill=False):
        # A SIGTERM sent right after READY=1 can be lost (see the report); a
        # PING first lets the daemon finish setting up its signal sources.
        if kill:
            self.process.kill()
        else:
            self.request("PING")
            self.process.terminate()
        self.process.wait()
        self.notify.close()
        shutil.rmtree(self.scratch, ignore_errors=True)


def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def drain(notify):
    notify.settimeout(None)
    try:
        while notify.recv(4096):
            pass
    except OSError:
        pass


def fold(monkeyd, sessions=1000, entries=2000):
    """Sessions typing 20-character entries until each holds `entries`
    (max_entries) and the 64 MiB journal is folded once; then, at the next
    fold: RSS just before it, the high-water mark during it (VmHWM, reset
    by writing 5 to clear_refs) and RSS once it is done. MiB."""
    state = tempfile.mkdtemp(prefix="monkeyd-bench-state.")
    daemon = Daemon(monkeyd, state, f"max_entries = {entries}\njournal_size = 64M\nsync_interval = 1s\n")
    journal = os.path.join(state, "sessions", "journal")
    pid = daemon.process.pid
    # The status lines it sends as it types: a queue left full would block it.
    threading.Thread(target=drain, args=(daemon.notify,), daemon=True).start()
    # Pipelined on one connection: one group commit for many STARTs.
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(daemon.socket)
        s.sendall("".join(f"START fold{index:05d} monkeys=20 interval=10ms\n" for index in range(sessions)).encode())
        data = b""
        while data.count(b"\n") < sessions:
            data += s.recv(65536)

    def size():
        try:
            return os.path.getsize(journal)
        except FileNotFoundError:
            return 0

    def await_fold():
        """Waits for the journal to shrink: a fold was done."""
        last = size()
        while True:
            time.sleep(0.02)
            now = size()
            if now < last:
                return
            last = now

    typed_per_session = 0
    while typed_per_session < entries:
        await_fold()
        status = daemon.request(f"STATUS fold{sessions - 1:05d}")
        typed_per_session = int(status.split(" entries=")[1].split()[0]) if " entries=" in status else entries
        print(f"a fold: {typed_per_session} entries a session", file=sys.stderr, flush=True)
    # The next fold: sampled as the journal nears its limit.
    while size() < 60 << 20:
        time.sleep(0.02)
    before = status_kib(pid, "VmRSS")
    with open(f"/proc/{pid}/clear_refs", "w") as f:
        f.write("5")
    await_fold()
    high = status_kib(pid, "VmHWM")
    time.sleep(1)  # the fold's last pages returned; typing goes on at the same rate
    after = status_kib(pid, "VmRSS")
    # A crash with the journal nearly full, and the start after it, which
    # reads the journal whole: the high-water mark and RSS once ready.
    while size() < 60 << 20:
        time.sleep(0.02)
    daemon.stop(kill=True)
    daemon = Daemon(monkeyd, state, f"max_entries = {entries}\njournal_size = 64M\nsync_interval = 1s\n")
    threading.Thread(target=drain, args=(daemon.notify,), daemon=True).start()
    restart_high = status_kib(daemon.process.pid, "VmHWM")
    restart_after = status_kib(daemon.process.pid, "VmRSS")
    daemon.stop(kill=True)
    shutil.rmtree(state, ignore_errors=True)
    print(f"{before / 1024:.1f} {high / 1024:.1f} {after / 1024:.1f}"
          f" restart: {restart_high / 1024:.1f} {restart_after / 1024:.1f}, ready after {daemon.ready_after:.2f} s")


def main():
    command = sys.argv[1]
    if command == "generate":
        generate(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif command == "startup":
        daemon = Daemon(sys.argv[2], sys.argv[3])
        print(f"{daemon.ready_after:.3f}")
        daemon.stop(kill=True)  # the state is unchanged: nothing typed
    elif command == "fold":
        fold(sys.argv[2], *map(int, sys.argv[3:5]))
    elif command == "cpu":
        monkeyd, rate, sync, seconds = sys.argv[2], int(sys.argv[3]), sys.argv[4], float(sys.argv[5])
        state = tempfile.mkdtemp(prefix="monkeyd-bench-state.")
        daemon = Daemon(monkeyd, state, f"sync_interval = {sync}\n")
        # Ten sessions sharing the rate, one monkey each.
        interval_ms = max(1, round(10 * 1000 / rate))
        for index in range(10):
            daemon.request(f"START cpu{index} interval={interval_ms}ms")
        time.sleep(1)  # let the sessions settle into their rhythm before measuring
        before, start = daemon.cpu_seconds(), time.monotonic()
        time.sleep(seconds)
        used, elapsed = daemon.cpu_seconds() - before, time.monotonic() - start
        print(f"{100 * used / elapsed:.2f}")
        daemon.stop()
        shutil.rmtree(state, ignore_errors=True)


if __name__ == "__main__":
    main()
