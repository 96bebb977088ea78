#!/usr/bin/env python3
"""`make bench`: monkeyd against redis-server, side by side, in one run.

Builds the C load client, starts each server on a Unix socket in a temporary
directory, runs every workload alternately (monkeyd, redis, monkeyd, redis,
...) and prints one Markdown table of medians, spreads and ratios.
See BENCHMARKS.md for what each figure means.
"""

import argparse
import fcntl
import json
import os
import platform
import pwd
import pty
import re
import shutil
import signal
import socket
import statistics
import subprocess
import struct
import sys
import tempfile
import termios
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def log(message):
    print(f"bench: {message}", file=sys.stderr, flush=True)


def parse_figures(line):
    figures = {}
    for field in line.split():
        key, _, value = field.partition("=")
        try:
            figures[key] = float(value)
        except ValueError:
            figures[key] = value
    return figures


class Bench:
    def __init__(self, arguments):
        self.arguments = arguments
        self.directory = tempfile.mkdtemp(prefix="monkeyd-bench.")
        self.monkeyd = os.path.join(os.path.abspath(arguments.binaries), "monkeyd")
        self.monkeyctl = os.path.join(os.path.abspath(arguments.binaries), "monkeyctl")
        self.redis = shutil.which("redis-server") or "/usr/bin/redis-server"
        self.client = os.path.join(self.directory, "loadclient")
        self.configuration = os.path.join(self.directory, "monkeyd.conf")
        with open(self.configuration, "w"):
            pass
        self.counter = 0
        self.results = {}  # figure -> {"monkeyd": [...], "redis": [...]}
        self.notes = []
        self.disk = None  # where durable state goes: on the disk, never tmpfs

    # -- plumbing -------------------------------------------------------------

    def build_client(self):
        source = os.path.join(ROOT, "bench", "loadclient.c")
        subprocess.run(["gcc", "-O2", "-Wall", "-o", self.client, source], check=True)

    def fresh_path(self, name, root=None):
        self.counter += 1
        path = os.path.join(root or self.directory, f"{name}{self.counter}")
        os.makedirs(path)
        return path

    def wait_for_ping(self, path, process):
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"server exited with status {process.returncode}")
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                    probe.connect(path)
                    probe.sendall(b"PING\r\n")
                    if probe.recv(64):
                        return
            except OSError:
                time.sleep(0.01)
        raise RuntimeError(f"no answer on {path}")

    def start_monkeyd(self, state=None, root=None, configuration=None):
        directory = self.fresh_path("monkeyd", root)
        state = state or os.path.join(directory, "state")
        path = os.path.join(directory, "monkeyd.sock")
        command = [self.monkeyd, "--socket", path, "--state-dir", state, "--config",
                   configuration or self.configuration]
        environment = {key: value for key, value in os.environ.items() if key != "NOTIFY_SOCKET"}
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment)
        self.wait_for_ping(path, process)
        return process, path

    def redis_command(self, directory, path, durable=False):
        # Durable: every write in the append-only file and fsynced before its reply.
        persistence = ["--appendonly", "yes", "--appendfsync", "always"] if durable else ["--appendonly", "no"]
        return [self.redis, "--save", "", *persistence, "--port", "0", "--unixsocket", path,
                "--unixsocketperm", "700", "--dir", directory, "--daemonize", "no", "--logfile", ""]

    def start_redis(self, root=None, durable=False):
        directory = self.fresh_path("redis", root)
        path = os.path.join(directory, "redis.sock")
        process = subprocess.Popen(self.redis_command(directory, path, durable), stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        self.wait_for_ping(path, process)
        return process, path

    def start(self, server):
        return self.start_monkeyd() if server == "monkeyd" else self.start_redis()

    @staticmethod
    def stop(process):
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def run_client(self, *arguments, timeout=600):
        result = subprocess.run([self.client, *map(str, arguments)], capture_output=True, text=True,
                                timeout=timeout)
        if result.returncode != 0:
            raise RuntimeError(f"loadclient {' '.join(map(str, arguments))}: {result.stderr.strip()}")
        return parse_figures(result.stdout.strip().splitlines()[-1])

    def record(self, figure, server, value):
        self.results.setdefault(figure, {"monkeyd": [], "redis": []})[server].append(value)

    def disk_directory(self):
        """A directory on the disk for durable state: the temporary directory
        unless it is on another file system than the repository (tmpfs), then
        one under the repository's `.build`."""
        if self.disk is None:
            self.disk = self.directory
            if os.stat(self.directory).st_dev != os.stat(ROOT).st_dev:
                self.disk = tempfile.mkdtemp(prefix="monkeyd-bench.", dir=os.path.join(ROOT, ".build"))
            df = subprocess.run(["df", "--output=source,fstype,target", self.disk], capture_output=True,
                                text=True).stdout.split()
            source, kind, target = df[-3:] if len(df) >= 3 else ("?", "?", "?")
            self.notes.append(f"durable state (monkeyd's state directories, redis's AOF) in {self.disk}: "
                              f"{source}, {kind} mounted on {target}, the repository's file system")
        return self.disk

    def send_lines(self, path, lines):
        """Sends control lines to monkeyd and checks every answer is OK."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.connect(path)
            connection.sendall("".join(f"{line}\n" for line in lines).encode())
            answers = self.read_statuses(connection, len(lines))
        if any(line.startswith("ERR") for line in answers.split("\n")):
            raise RuntimeError(f"{lines}: {answers.strip()}")

    # -- workloads ------------------------------------------------------------

    def control_plane(self):
        servers = {}
        try:
            # Started inside the try, so that one that fails to start does not leave the other running.
            for name in ("monkeyd", "redis"):
                servers[name] = self.start(name)
            for pair in range(self.arguments.pairs):
                for mode in ("single", "pipeline", "conns"):
                    for name in ("monkeyd", "redis"):
                        process, path = servers[name]
                        figures = self.run_client("ping", path, mode, self.arguments.ping_seconds, process.pid)
                        self.record(f"ping {mode} requests/s", name, figures["rps"])
                        self.record(f"ping {mode} server CPU µs/request", name, figures["cpu_us_per_request"])
                log(f"control plane pair {pair + 1}/{self.arguments.pairs}")
        finally:
            for process, _ in servers.values():
                self.stop(process)

    def typing(self):
        for sessions in self.arguments.sessions:
            for run in range(self.arguments.pairs):
                process, path = self.start_monkeyd()
                # From 10,000 sessions the entries journal fills (64 MiB) about
                # every half minute: the window then spans whole cycles of
                # typing and folding, from the end of one fold to the end of
                # the first after --typing-seconds. Fewer sessions fill it in
                # 6 minutes or more; their windows hold no fold.
                extra = []
                if sessions >= 10000:
                    extra = [f"journal={os.path.join(os.path.dirname(path), 'state', 'sessions', 'journal')}"]
                try:
                    figures = self.run_client("typing", path, sessions, self.arguments.typing_seconds, process.pid,
                                              *extra)
                finally:
                    self.stop(process)
                self.record(f"typing {sessions:,} sessions: CPU % of one core", "monkeyd", figures["cpu_percent"])
                self.record(f"typing {sessions:,} sessions: RSS MiB", "monkeyd", figures["rss_kib"] / 1024)
                self.record(f"typing {sessions:,} sessions: tick lateness p50 ms", "monkeyd", figures["late_p50_ms"])
                self.record(f"typing {sessions:,} sessions: tick lateness p99 ms", "monkeyd", figures["late_p99_ms"])
                log(f"typing {sessions} sessions run {run + 1}/{self.arguments.pairs}: {figures}")

    def fanout(self):
        for pair in range(self.arguments.pairs):
            for name in ("monkeyd", "redis"):
                process, path = self.start(name)
                try:
                    figures = self.run_client("fanout", path, name, 100, 1000, self.arguments.fanout_seconds,
                                              process.pid)
                finally:
                    self.stop(process)
                self.record("fan-out 100×1 kHz: entries delivered/s", name, figures["delivered_per_s"])
                self.record("fan-out 100×1 kHz: entries lost", name, figures["lost"] + figures["lost_reported"])
                self.record("fan-out 100×1 kHz: delivery lag p99 ms", name, figures["lag_p99_ms"])
                self.record("fan-out 100×1 kHz: server CPU %", name, figures["cpu_percent"])
            log(f"fan-out pair {pair + 1}/{self.arguments.pairs}")

    def seeded(self):
        """Typing 10,000 sessions with a seed each (the counter-based
        generator) against the same without seeds (in the redis column)."""
        sessions = 10000
        figure = f"typing {sessions:,} seeded sessions: CPU % of one core (vs unseeded)"
        for pair in range(self.arguments.pairs):
            for column, extra in (("monkeyd", ["seeded"]), ("redis", [])):
                process, path = self.start_monkeyd()
                try:
                    figures = self.run_client("typing", path, sessions, self.arguments.typing_seconds, process.pid,
                                              *extra)
                finally:
                    self.stop(process)
                self.record(figure, column, figures["cpu_percent"])
            log(f"seeded pair {pair + 1}/{self.arguments.pairs}: {figures}")

    def glob_tail(self):
        """`TAIL "*"` over many sessions typing at 10 Hz to several followers,
        against redis `PSUBSCRIBE s*` delivering as many messages of the
        same size from as many channels."""
        sessions, followers = self.arguments.glob_sessions, 10
        configuration = os.path.join(self.directory, "monkeyd-glob.conf")
        with open(configuration, "w") as file:
            file.write(f"max_sessions = {sessions}\n")
        figure = f"TAIL \"*\" of {sessions:,} sessions at 10 Hz to {followers} followers"
        for pair in range(self.arguments.pairs):
            for name in ("monkeyd", "redis"):
                if name == "monkeyd":
                    process, path = self.start_monkeyd(configuration=configuration)
                else:
                    process, path = self.start_redis()
                try:
                    figures = self.run_client("globtail", path, name, sessions, followers,
                                              self.arguments.fanout_seconds, process.pid)
                finally:
                    self.stop(process)
                self.record(f"{figure}: entries delivered/s", name, figures["delivered_per_s"])
                self.record(f"{figure}: entries lost", name, figures["lost"] + figures["lost_reported"])
                self.record(f"{figure}: server CPU %", name, figures["cpu_percent"])
            log(f"glob tail pair {pair + 1}/{self.arguments.pairs}: {figures}")

    def waiters(self):
        """The daemon's CPU with a session typing at 1 kHz, with no WAIT and
        with many idle ones (in the redis column, as the reference)."""
        count = self.arguments.waiters
        configuration = os.path.join(self.directory, "monkeyd-waiters.conf")
        with open(configuration, "w") as file:
            file.write(f"max_clients = {count + 16}\n")
        figure = f"a session typing at 1 kHz: daemon CPU % with {count:,} idle WAITs (vs none)"
        for pair in range(self.arguments.pairs):
            for column, waiting in (("monkeyd", count), ("redis", 0)):
                process, path = self.start_monkeyd(configuration=configuration)
                try:
                    figures = self.run_client("waiters", path, waiting, self.arguments.typing_seconds, process.pid)
                finally:
                    self.stop(process)
                if figures["answered"]:
                    raise RuntimeError(f"{figures['answered']:.0f} idle WAITs were answered")
                self.record(figure, column, figures["cpu_percent"])
            log(f"waiters pair {pair + 1}/{self.arguments.pairs}: {figures}")

    def startup_once(self, name, state=None):
        directory = self.fresh_path("startup")
        if name == "monkeyd":
            path = os.path.join(directory, "monkeyd.sock")
            state = state or os.path.join(directory, "state")
            command = [self.monkeyd, "--socket", path, "--state-dir", state, "--config", self.configuration]
        else:
            path = os.path.join(directory, "redis.sock")
            command = self.redis_command(directory, path)
        return self.run_client("startup", name, path, "--", *command)

    def startup(self):
        for pair in range(self.arguments.pairs):
            for name in ("monkeyd", "redis"):
                figures = self.startup_once(name)
                self.record("start-up, no state: ms to ready", name, figures["ready_ms"])
                self.record("idle RSS MiB", name, figures["idle_rss_kib"] / 1024)
        log("start-up without state done")
        if not self.has_durable_store():
            self.notes.append(
                "start-up with 1,000 saved sessions × 10,000 entries: skipped, this monkeyd keeps no state "
                "across restarts yet (no durable store behind the SessionStore seam)")
            return
        state = os.path.join(self.fresh_path("saved"), "state")
        process, path = self.start_monkeyd(state=state)
        try:
            self.run_client("populate", path, 1000, 10000, timeout=900)
        finally:
            self.stop(process)
        log("saved state populated")
        for pair in range(self.arguments.pairs):
            figures = self.startup_once("monkeyd", state=state)
            self.record("start-up, 1,000 × 10,000 saved: ms to ready", "monkeyd", figures["ready_ms"])
            self.record("RSS after restoring 1,000 × 10,000, MiB", "monkeyd", figures["idle_rss_kib"] / 1024)

    def has_durable_store(self):
        """Whether a session outlives a restart of the daemon (durability on)."""
        state = os.path.join(self.fresh_path("probe"), "state")
        process, path = self.start_monkeyd(state=state)
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
                connection.connect(path)
                connection.sendall(b"START probe interval=1h\nSTOP probe\n")
                self.read_statuses(connection, 2)
        finally:
            self.stop(process)
        process, path = self.start_monkeyd(state=state)
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
                connection.connect(path)
                connection.sendall(b"STATUS probe\n")
                return "session name=probe" in self.read_statuses(connection, 1)
        finally:
            self.stop(process)

    # The limits of issue 18: a target of 1,024 characters (of period 7, so
    # with many moves back) over 256 characters, 10,000 monkeys.
    ODDS_ALPHABET = "".join(chr(c) for c in range(0x20, 0x7F)) + "".join(chr(c) for c in range(0xA0, 0xA0 + 161))
    ODDS_TARGET = ("monkey!" * 147)[:1024]

    def odds_once(self, *arguments):
        """Seconds for one `monkeyctl odds` run, start to exit."""
        started = time.perf_counter()
        subprocess.run([self.monkeyctl, "odds", *arguments], check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - started

    def odds(self):
        """The worst-case p in the release build: a `monkeyctl odds` at the limits
        minus a trivial one (process start-up), pair by pair."""
        worst = ["--target", self.ODDS_TARGET, "--alphabet", self.ODDS_ALPHABET, "--monkeys", "10000"]
        for _ in range(3):  # warm the page cache
            self.odds_once(*worst)
        for _ in range(self.arguments.pairs * 4):
            trivial = self.odds_once("--target", "a")
            self.record("odds: worst-case p (1,024 over 256, 10,000 monkeys), ms", "monkeyd",
                        (self.odds_once(*worst) - trivial) * 1000)
        log("odds done")
    # -- durable control (issue 17: group commit) -----------------------------

    DURABLE_LINES = (("CLEAR", "CLEAR q"), ("SET", "SET q monkeys=%d"))

    def durable_control(self):
        """CLEAR and SET on monkeyd against INCR on redis with appendfsync
        always, both durable on the same disk, in the three ping shapes."""
        disk = self.disk_directory()
        servers = {"monkeyd": self.start_monkeyd(root=disk), "redis": self.start_redis(root=disk, durable=True)}
        floors = []
        try:
            # The session the requests change; stopped, so that it never types.
            self.send_lines(servers["monkeyd"][1], ["START q interval=1h", "STOP q"])
            for pair in range(self.arguments.pairs):
                floors.append(self.run_client("fsync", disk, 1000))
                for verb, line in self.DURABLE_LINES:
                    for mode in ("single", "pipeline", "conns"):
                        for name in ("monkeyd", "redis"):
                            process, path = servers[name]
                            request = line if name == "monkeyd" else "INCR k"
                            figures = self.run_client("request", path, request, mode,
                                                      self.arguments.durable_seconds, process.pid)
                            if figures["errors"]:
                                raise RuntimeError(f"{name} {request}: {figures['errors']:.0f} errors")
                            self.record(f"durable {verb}/INCR {mode} requests/s", name, figures["rps"])
                            self.record(f"durable {verb}/INCR {mode} server CPU µs/request", name,
                                        figures["cpu_us_per_request"])
                log(f"durable control pair {pair + 1}/{self.arguments.pairs}, disk floor {floors[-1]}")
        finally:
            for process, _ in servers.values():
                self.stop(process)
        p50 = [floor["p50_us"] for floor in floors]
        p99 = [floor["p99_us"] for floor in floors]
        self.notes.append(
            f"disk floor (1,000 appends of 40 bytes, each followed by fdatasync, in the same directory, before "
            f"each pair): p50 {self.spread(p50)} µs, p99 {self.spread(p99)} µs")

    def starts(self):
        """STARTs of new sessions pipelined into an empty state directory,
        then a restart on what they left."""
        count = self.arguments.starts
        disk = self.disk_directory()
        for run in range(self.arguments.pairs):
            state = os.path.join(self.fresh_path("starts", disk), "state")
            process, path = self.start_monkeyd(state=state, root=disk)
            try:
                figures = self.run_client("burst", path, "START s%d interval=1h", count, timeout=900)
            except RuntimeError as error:
                # A slow run can outlast idle_timeout (60 s): the daemon
                # then hangs up on the burst. Say so and go on with the rest.
                self.notes.append(f"starts run {run + 1} failed: {error}")
                log(f"starts run {run + 1}/{self.arguments.pairs} failed: {error}")
                continue
            finally:
                self.stop(process)
            if figures["errors"]:
                raise RuntimeError(f"{figures['errors']:.0f} of {count} STARTs failed")
            restart = self.startup_once("monkeyd", state=state)
            self.record(f"{count:,} STARTs into an empty state directory, pipelined: ms", "monkeyd", figures["ms"])
            self.record(f"restart with those {count:,} sessions: ms to ready", "monkeyd", restart["ready_ms"])
            log(f"starts run {run + 1}/{self.arguments.pairs}: {figures} restart {restart}")

    def set_latency(self):
        """SET round trips, one at a time at a modest rate, while many
        sessions type at 10 Hz (and their entries are synced every second);
        then the same while the control log is compacted again and again."""
        self.set_latency_runs(compacting=False)
        self.set_latency_runs(compacting=True)

    def set_latency_runs(self, compacting):
        sessions, rate = self.arguments.latency_sessions, self.arguments.latency_rate
        disk = self.disk_directory()
        # The typing sessions, q and w: more than the default limit.
        configuration = os.path.join(self.directory, "monkeyd-latency.conf")
        with open(configuration, "w") as file:
            file.write(f"max_sessions = {sessions + 2}\n")
            if compacting:
                # The smallest segment allowed: a snapshot is then due each
                # time the segment outgrows twice the last snapshot.
                file.write("control_log_size = 64K\n")
        figure = f"SET latency, {rate:g}/s while {sessions:,} sessions type"
        if compacting:
            figure += " and the control log is compacted"
        for run in range(self.arguments.pairs):
            state = os.path.join(self.fresh_path("latency", disk), "state")
            process, path = self.start_monkeyd(state=state, root=disk, configuration=configuration)
            writer = None
            try:
                self.send_lines(path, ["START q interval=1h", "STOP q", "START w interval=1h", "STOP w"])
                if compacting:
                    # Another client changes w one request after another, as
                    # fast as the disk allows, for the whole run: its records
                    # fill segment after segment. The latency client's STARTs
                    # and settling take a few seconds before its window.
                    writer = subprocess.Popen(
                        [self.client, "request", path, "SET w monkeys=%d", "single",
                         str(self.arguments.latency_seconds + 5), str(process.pid)],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                figures = self.run_client("latency", path, sessions, "SET q monkeys=%d", rate,
                                          self.arguments.latency_seconds, process.pid)
                if writer:
                    output, errors = writer.communicate(timeout=120)
                    if writer.returncode != 0:
                        raise RuntimeError(f"loadclient request SET w: {errors.strip()}")
                    if parse_figures(output.strip().splitlines()[-1])["errors"]:
                        raise RuntimeError("SETs of w failed")
                    # Each compaction started the next segment, control.N (a
                    # clean stop folds them all into the snapshot: counted before).
                    segments = [int(name.split(".")[1]) for name in os.listdir(os.path.join(state, "sessions"))
                                if re.fullmatch(r"control\.[0-9]+", name)]
                    self.record(f"{figure}: compactions in the run", "monkeyd", max(segments) - 1)
            finally:
                if writer and writer.poll() is None:
                    writer.kill()
                    writer.wait()
                self.stop(process)
            if figures["errors"]:
                raise RuntimeError(f"{figures['errors']:.0f} SETs failed")
            self.record(f"{figure}: p50 ms", "monkeyd", figures["p50_ms"])
            self.record(f"{figure}: p99 ms", "monkeyd", figures["p99_ms"])
            self.record(f"{figure}: max ms", "monkeyd", figures["max_ms"])
            log(f"{figure} run {run + 1}/{self.arguments.pairs}: {figures}")

    # -- monkeyctl top over many sessions (issue 20) ----------------------------

    @staticmethod
    def cpu_seconds(pid):
        """utime + stime of a process, all its threads, in seconds."""
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def top(self):
        """`monkeyctl top` over 10,000 typing sessions in a pseudo-terminal of
        120 × 40: what top and the daemon's work for it cost, and how soon a
        change made by another client is on the screen."""
        count, seconds = self.arguments.top_sessions, self.arguments.top_seconds
        configuration = os.path.join(self.directory, "monkeyd-top.conf")
        with open(configuration, "w") as file:
            # Room for the probes that top_once starts.
            file.write(f"max_sessions = {count + 1000}\n")
        for run in range(self.arguments.pairs):
            process, path = self.start_monkeyd(configuration=configuration)
            try:
                # Every tenth session has a target it hits now and then, so
                # that hits and best progress change while top watches.
                lines = [f"START s{index:05d} interval=10s monkeys=5" + (" target=ab" if index % 10 == 0 else "")
                         for index in range(count)]
                for first in range(0, count, 1000):
                    self.send_lines(path, lines[first:first + 1000])
                # The daemon alone before top and again after it, so that
                # what settles after 10,000 STARTs is not put down to top.
                time.sleep(5)
                alone = [self.daemon_alone(process, seconds / 2)]
                figures = self.top_once(process, path, seconds)
                alone.append(self.daemon_alone(process, seconds / 2))
                baseline = sum(alone) / 2
            finally:
                self.stop(process)
            figure = f"top over {count:,} sessions"
            extra = max(figures["daemon"] - baseline, 0)
            self.record(f"{figure}: top CPU % of one core", "monkeyd", figures["top"] * 100)
            self.record(f"{figure}: daemon CPU % for top (with − without)", "monkeyd", extra * 100)
            self.record(f"{figure}: top + daemon for it, CPU %", "monkeyd", (figures["top"] + extra) * 100)
            for kind, label in (("state", "a stop"), ("created", "a new session")):
                self.record(f"{figure}: {label} on screen after, p50 ms", "monkeyd", figures[f"{kind}_p50_ms"])
                self.record(f"{figure}: {label} on screen after, max ms", "monkeyd", figures[f"{kind}_max_ms"])
            log(f"top run {run + 1}/{self.arguments.pairs}: daemon alone {alone[0] * 100:.2f} % before top, "
                f"{alone[1] * 100:.2f} % after, {figures}")

    def daemon_alone(self, process, seconds):
        """The daemon's CPU, in cores, over `seconds` with nobody asking."""
        before = self.cpu_seconds(process.pid)
        time.sleep(seconds)
        return (self.cpu_seconds(process.pid) - before) / seconds

    def top_once(self, daemon, path, seconds):
        """Runs top in a pty: first `seconds` of watching, whose CPU (top's
        and the daemon's) is the cost; then, every second, another client
        either stops s00001 (on screen, unselected: its event is enough;
        started again right after), or starts a new session that sorts
        first (ZZZZZZZZ, then YYYYYYYY, ...: top must ask for STATUS of
        every session to show it), `top_probes` of each. The time until
        `stopped`, or the new name, arrives in what top writes is one
        sample: top writes only what changed, and these share no character
        with what was there before."""
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        environment = dict(os.environ, TERM="xterm-256color", NO_COLOR="1")
        top = subprocess.Popen([self.monkeyctl, "--socket", path, "top"], stdin=slave, stdout=slave, stderr=slave,
                               env=environment, start_new_session=True)
        os.close(slave)
        output = bytearray()
        arrived = threading.Condition()

        def read():
            while True:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    chunk = b""
                with arrived:
                    if not chunk:
                        output.extend(b"\0EOF")
                        arrived.notify_all()
                        return
                    output.extend(chunk)
                    arrived.notify_all()

        def wait_for(text, start, timeout=10):
            """When `text` has arrived after `start`, polled by the reader's notifications."""
            deadline = time.monotonic() + timeout
            with arrived:
                while text not in output[start:]:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0 or b"\0EOF" in output:
                        raise RuntimeError(f"top never showed {text!r}")
                    arrived.wait(remaining)
                return time.monotonic()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            wait_for(b"s00001", 0, timeout=30)
            time.sleep(2)  # the first snapshots (and their METRICS) taken
            top_before, daemon_before = self.cpu_seconds(top.pid), self.cpu_seconds(daemon.pid)
            time.sleep(seconds)
            top_cpu = (self.cpu_seconds(top.pid) - top_before) / seconds
            daemon_cpu = (self.cpu_seconds(daemon.pid) - daemon_before) / seconds
            latencies = {"state": [], "created": []}
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as control:
                control.connect(path)
                probes = iter("ZYXWVUTSRQPONMLKJIHGFEDCBA")
                while len(latencies["created"]) < self.arguments.top_probes:
                    if len(latencies["state"]) <= len(latencies["created"]):
                        kind, line, shown = "state", "STOP s00001", "stopped"
                    else:
                        name = next(probes) * 8
                        kind, line, shown = "created", f"START {name} interval=10s monkeys=5", name
                    with arrived:
                        offset = len(output)
                    sent = time.monotonic()
                    control.sendall(f"{line}\n".encode())
                    answer = self.read_statuses(control, 1)
                    if not answer.startswith("OK"):
                        raise RuntimeError(f"{line}: {answer.strip()}")
                    latencies[kind].append((wait_for(shown.encode(), offset) - sent) * 1000)
                    if kind == "state":
                        control.sendall(b"START s00001\n")
                        self.read_statuses(control, 1)
                    time.sleep(max(0.0, 1 - (time.monotonic() - sent)))
            os.write(master, b"q")
            status = top.wait(timeout=10)
            if status != 0:
                raise RuntimeError(f"top exited with status {status}")
        finally:
            if top.poll() is None:
                top.kill()
                top.wait()
            reader.join(timeout=5)
            os.close(master)
        figures = {"top": top_cpu, "daemon": daemon_cpu}
        for kind, samples in latencies.items():
            figures[f"{kind}_p50_ms"] = statistics.median(samples)
            figures[f"{kind}_max_ms"] = max(samples)
        return figures

    @staticmethod
    def free_port():
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.bind(("127.0.0.1", 0))
            return probe.getsockname()[1]

    def metrics(self):
        """The typing workload with 10,000 sessions while the metrics are
        scraped over HTTP every second, against the same without scrapes,
        alternately on fresh daemons: time to a scrape's last byte, and tick
        lateness (issue 21)."""
        sessions = self.arguments.metrics_sessions
        for run in range(self.arguments.pairs):
            for period, label in ((0, "no scrapes"), (1000, "scraped every 1 s")):
                port = self.free_port()
                configuration = os.path.join(self.directory, f"monkeyd-metrics{run}-{period}.conf")
                with open(configuration, "w") as file:
                    file.write(f"metrics_listen = 127.0.0.1:{port}\n")
                process, path = self.start_monkeyd(configuration=configuration)
                try:
                    figures = self.run_client("scrape", path, sessions, self.arguments.typing_seconds, process.pid,
                                              port, period)
                finally:
                    self.stop(process)
                figure = f"typing {sessions:,} sessions, {label}"
                self.record(f"{figure}: CPU % of one core", "monkeyd", figures["cpu_percent"])
                self.record(f"{figure}: tick lateness p50 ms", "monkeyd", figures["late_p50_ms"])
                self.record(f"{figure}: tick lateness p99 ms", "monkeyd", figures["late_p99_ms"])
                self.record(f"{figure}: the daemon's own tick lateness p99, ms at most", "monkeyd",
                            figures["daemon_late_p99_ms_at_most"])
                if period:
                    if figures["incomplete"] or not figures["scrapes"]:
                        raise RuntimeError(f"scrapes: {figures}")
                    self.record(f"scrape of {sessions:,} sessions: ms to the last byte, p50", "monkeyd",
                                figures["scrape_p50_ms"])
                    self.record(f"scrape of {sessions:,} sessions: ms to the last byte, max", "monkeyd",
                                figures["scrape_max_ms"])
                    self.record(f"scrape of {sessions:,} sessions: MB", "monkeyd", figures["scrape_bytes"] / 1e6)
                log(f"metrics run {run + 1}/{self.arguments.pairs}, {label}: {figures}")

    # -- monkeyctl -H: through ssh ---------------------------------------------

    def start_sshd(self):
        """Debian's sshd on 127.0.0.1 with keys made here, as the tests run it:
        remote commands get a PATH with the built monkeyctl first and may be
        given MONKEYD_SOCKET. Returns the process and ssh's command line."""
        directory = self.fresh_path("sshd")
        for key in ("host", "user"):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", f"{directory}/{key}"], check=True)
        shutil.copy(f"{directory}/user.pub", f"{directory}/authorized_keys")
        os.makedirs("/run/sshd", exist_ok=True)
        port = self.free_port()
        binaries = os.path.dirname(self.monkeyctl)
        with open(f"{directory}/sshd_config", "w") as file:
            file.write(f"ListenAddress 127.0.0.1:{port}\nHostKey {directory}/host\n"
                       f"AuthorizedKeysFile {directory}/authorized_keys\nPidFile {directory}/sshd.pid\n"
                       "UsePAM no\nStrictModes no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
                       "PermitRootLogin prohibit-password\nAcceptEnv MONKEYD_SOCKET\n"
                       f"SetEnv PATH={binaries}:/usr/bin:/bin\nMaxStartups 100\n")
        process = subprocess.Popen(["/usr/sbin/sshd", "-D", "-e", "-f", f"{directory}/sshd_config"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for line in process.stderr:
            if "Server listening" in line:
                break
        else:
            raise RuntimeError("sshd did not start")
        threading.Thread(target=lambda: process.stderr.read(), daemon=True).start()
        ssh = ["ssh", "-F", "/dev/null", "-o", "StrictHostKeyChecking=no", "-o",
               f"UserKnownHostsFile={directory}/known_hosts", "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes",
               "-o", "LogLevel=ERROR", "-i", f"{directory}/user", "-p", str(port)]
        return process, ssh

    @staticmethod
    def ping_rounds(send, receive, batch, seconds):
        """Rounds of `batch` pipelined PINGs for `seconds`: requests/s, and
        the round trips of single PINGs after them (ms)."""
        def round_trip(count):
            send(b"PING\n" * count)
            seen = 0
            pending = b""
            while seen < count:
                chunk = receive()
                if not chunk:
                    raise RuntimeError("the connection closed")
                pending += chunk
                seen = pending.count(b"\n")
        round_trip(batch)
        requests = 0
        began = time.monotonic()
        while time.monotonic() - began < seconds:
            round_trip(batch)
            requests += batch
        rate = requests / (time.monotonic() - began)
        singles = []
        for _ in range(200):
            start = time.perf_counter()
            round_trip(1)
            singles.append((time.perf_counter() - start) * 1000)
        return rate, statistics.median(singles)

    def remote(self):
        """PINGs through `monkeyctl -H`'s path (one ssh connection to an sshd
        on the loopback address, `monkeyctl bridge` on the far side), 100
        pipelined at a time, beside the same on the daemon's socket; the
        round trip of one PING on each, and a whole `monkeyctl -H HOST ping`
        (ssh's handshake included) beside `monkeyctl ping`."""
        sshd, ssh = self.start_sshd()
        process, path = self.start_monkeyd()
        user = pwd.getpwuid(os.geteuid()).pw_name
        batch = 100
        try:
            for run in range(self.arguments.pairs):
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
                    connection.connect(path)
                    local_rate, local_ms = self.ping_rounds(
                        connection.sendall, lambda: connection.recv(65536), batch, self.arguments.ping_seconds)
                bridge = subprocess.Popen(
                    ssh + ["-o", f"SetEnv=MONKEYD_SOCKET={path}", f"{user}@127.0.0.1", "monkeyctl bridge"],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
                def send(data):
                    bridge.stdin.write(data)
                    bridge.stdin.flush()
                try:
                    remote_rate, remote_ms = self.ping_rounds(
                        send, lambda: os.read(bridge.stdout.fileno(), 65536), batch, self.arguments.ping_seconds)
                finally:
                    bridge.stdin.close()
                    bridge.wait(timeout=30)
                commands = {"local": [self.monkeyctl, "--socket", path, "ping"],
                            "remote": [self.monkeyctl, "-H", f"{user}@127.0.0.1", "ping"]}
                environment = dict(os.environ, MONKEYCTL_SSH=" ".join(ssh + ["-o", f"SetEnv=MONKEYD_SOCKET={path}"]))
                whole = {}
                for kind, command in commands.items():
                    times = []
                    for _ in range(10):
                        start = time.perf_counter()
                        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=environment)
                        times.append((time.perf_counter() - start) * 1000)
                    whole[kind] = statistics.median(times)
                self.record("PING, 100 pipelined, on the socket: requests/s", "monkeyd", local_rate)
                self.record("PING, 100 pipelined, through -H (one ssh connection): requests/s", "monkeyd",
                            remote_rate)
                self.record("one PING's round trip on the socket: ms", "monkeyd", local_ms)
                self.record("one PING's round trip through -H: ms", "monkeyd", remote_ms)
                self.record("one PING's round trip: ms added by ssh", "monkeyd", remote_ms - local_ms)
                self.record("monkeyctl ping, the whole command: ms", "monkeyd", whole["local"])
                self.record("monkeyctl -H HOST ping, the whole command (ssh's handshake): ms", "monkeyd",
                            whole["remote"])
                log(f"remote run {run + 1}/{self.arguments.pairs}: {local_rate:.0f} vs {remote_rate:.0f} requests/s, "
                    f"{local_ms:.3f} vs {remote_ms:.3f} ms, whole {whole}")
        finally:
            self.stop(process)
            self.stop(sshd)

    @staticmethod
    def read_statuses(connection, count):
        text = ""
        while sum(1 for line in text.split("\n") if line.startswith(("OK", "ERR"))) < count:
            chunk = connection.recv(65536)
            if not chunk:
                break
            text += chunk.decode()
        return text

    # -- the table ------------------------------------------------------------

    TARGETS = {
        "ping single requests/s": ("ratio", 1.0, ">="),
        "ping pipeline requests/s": ("ratio", 1.0, ">="),
        "ping conns requests/s": ("ratio", 1.0, ">="),
        "typing 10,000 sessions: CPU % of one core": ("value", 2.5, "<="),
        "typing 10,000 sessions: tick lateness p99 ms": ("value", 5.0, "<"),
        "fan-out 100×1 kHz: entries lost": ("value", 0.0, "<="),
        "fan-out 100×1 kHz: server CPU %": ("ratio", 1.0, "<"),
        "start-up, no state: ms to ready": ("value", 20.0, "<"),
        "odds: worst-case p (1,024 over 256, 10,000 monkeys), ms": ("value", 100.0, "<"),
        "typing 10,000 seeded sessions: CPU % of one core (vs unseeded)": ("ratio", 1.10, "<="),
        # Issue 17 (group commit).
        "durable CLEAR/INCR single requests/s": ("ratio", 1.0, ">="),
        "durable CLEAR/INCR pipeline requests/s": ("ratio", 1.0, ">="),
        "durable CLEAR/INCR conns requests/s": ("ratio", 1.0, ">="),
        "durable SET/INCR single requests/s": ("ratio", 1.0, ">="),
        "durable SET/INCR pipeline requests/s": ("ratio", 1.0, ">="),
        "durable SET/INCR conns requests/s": ("ratio", 1.0, ">="),
        "10,000 STARTs into an empty state directory, pipelined: ms": ("value", 1000.0, "<"),
        "restart with those 10,000 sessions: ms to ready": ("value", 1000.0, "<"),
        "SET latency, 200/s while 10,000 sessions type: p99 ms": ("value", 5.0, "<"),
        "SET latency, 200/s while 10,000 sessions type and the control log is compacted: p99 ms": ("value", 5.0, "<"),
        # Issue 19 (many sessions, events, waiting).
        'TAIL "*" of 1,000 sessions at 10 Hz to 10 followers: entries lost': ("value", 0.0, "<="),
        'TAIL "*" of 1,000 sessions at 10 Hz to 10 followers: server CPU %': ("ratio", 1.0, "<"),
        "a session typing at 1 kHz: daemon CPU % with 1,000 idle WAITs (vs none)": ("ratio", 1.25, "<"),
        # Issue 21 (metrics).
        "typing 10,000 sessions, scraped every 1 s: tick lateness p99 ms": ("value", 5.0, "<"),
        # Issue 20 (monkeyctl top).
        "top over 10,000 sessions: top + daemon for it, CPU %": ("value", 5.0, "<"),
        "top over 10,000 sessions: a stop on screen after, max ms": ("value", 1000.0, "<"),
        "top over 10,000 sessions: a new session on screen after, max ms": ("value", 1000.0, "<"),
    }

    @staticmethod
    def spread(values):
        if not values:
            return "—"
        median = statistics.median(values)
        return f"{Bench.number(median)} ({Bench.number(min(values))}–{Bench.number(max(values))})"

    @staticmethod
    def number(value):
        if value == 0:
            return "0"
        if abs(value) >= 1000:
            return f"{value:,.0f}"
        if abs(value) >= 10:
            return f"{value:.1f}"
        return f"{value:.3g}" if abs(value) < 1 else f"{value:.2f}"

    def table(self):
        lines = ["| figure | monkeyd median (min–max) | redis median (min–max) | monkeyd/redis | target |",
                 "|---|---|---|---|---|"]
        for figure, values in self.results.items():
            monkeyd, redis = values["monkeyd"], values["redis"]
            ratio = "—"
            ratio_value = None
            if monkeyd and redis and statistics.median(redis) != 0:
                ratio_value = statistics.median(monkeyd) / statistics.median(redis)
                ratio = f"{ratio_value:.2f}"
            target = ""
            if figure in self.TARGETS:
                kind, bound, comparison = self.TARGETS[figure]
                subject = ratio_value if kind == "ratio" else (statistics.median(monkeyd) if monkeyd else None)
                if subject is not None:
                    met = {">=": subject >= bound, "<=": subject <= bound, "<": subject < bound}[comparison]
                    label = "ratio" if kind == "ratio" else "monkeyd"
                    target = f"{label} {comparison} {self.number(bound)}: {'met' if met else 'MISSED'}"
            lines.append(f"| {figure} | {self.spread(monkeyd)} | {self.spread(redis)} | {ratio} | {target} |")
        return "\n".join(lines)

    def machine(self):
        model = "unknown CPU"
        try:
            with open("/proc/cpuinfo") as cpuinfo:
                for line in cpuinfo:
                    if line.startswith("model name"):
                        model = line.split(":", 1)[1].strip()
                        break
        except OSError:
            pass
        try:
            redis_version = subprocess.run([self.redis, "--version"], capture_output=True, text=True).stdout.split()
        except OSError:
            redis_version = []  # a run of workloads that need no redis
        version = next((field for field in redis_version if field.startswith("v=")), "v=?")[2:]
        load = os.getloadavg()[0]
        return (f"{os.cpu_count()} CPUs ({model}), Linux {platform.release()}, redis-server {version}, "
                f"load average {load:.1f} at the end, {self.arguments.pairs} runs per figure")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=5, help="runs of each workload per server (A B A B ...)")
    parser.add_argument("--ping-seconds", type=float, default=2)
    parser.add_argument("--typing-seconds", type=float, default=10)
    parser.add_argument("--fanout-seconds", type=float, default=5)
    parser.add_argument("--sessions", type=int, nargs="+", default=[100, 1000, 10000])
    parser.add_argument("--durable-seconds", type=float, default=2)
    parser.add_argument("--starts", type=int, default=10000, help="sessions the starts workload creates")
    parser.add_argument("--latency-sessions", type=int, default=10000)
    parser.add_argument("--latency-rate", type=float, default=200, help="SETs a second")
    parser.add_argument("--latency-seconds", type=float, default=10)
    parser.add_argument("--glob-sessions", type=int, default=1000, help="sessions a TAIL \"*\" follows")
    parser.add_argument("--waiters", type=int, default=1000, help="idle WAITs on one typing session")
    parser.add_argument("--metrics-sessions", type=int, default=10000)
    parser.add_argument("--top-sessions", type=int, default=10000)
    parser.add_argument("--top-seconds", type=float, default=20, help="measured window, with top and without")
    parser.add_argument("--top-probes", type=int, default=5, help="changes of each kind timed on top's screen")
    workloads = ["control", "typing", "seeded", "fanout", "glob-tail", "waiters", "startup", "odds", "durable",
                 "starts", "set-latency", "metrics", "top", "remote"]
    parser.add_argument("--only", nargs="+", choices=workloads, default=workloads)
    parser.add_argument("--binaries", default=os.path.join(ROOT, ".build", "release"),
                        help="where monkeyd and monkeyctl are (a debug build for a quick look)")
    parser.add_argument("--json", help="also write every run's figures to this file (bench/compare.py reads it)")
    arguments = parser.parse_args()
    bench = Bench(arguments)
    started = time.monotonic()
    try:
        bench.build_client()
        for workload in arguments.only:
            log(f"{workload} ...")
            began = time.monotonic()
            {"control": bench.control_plane, "typing": bench.typing, "fanout": bench.fanout,
             "startup": bench.startup, "odds": bench.odds, "durable": bench.durable_control,
             "starts": bench.starts, "set-latency": bench.set_latency, "glob-tail": bench.glob_tail,
             "waiters": bench.waiters, "seeded": bench.seeded, "metrics": bench.metrics,
             "top": bench.top, "remote": bench.remote}[workload]()
            log(f"{workload} done in {time.monotonic() - began:.0f} s")
    finally:
        shutil.rmtree(bench.directory, ignore_errors=True)
        if bench.disk and bench.disk != bench.directory:
            shutil.rmtree(bench.disk, ignore_errors=True)
    if arguments.json:
        with open(arguments.json, "w") as file:
            json.dump({"figures": bench.results, "notes": bench.notes}, file)
    print()
    print(bench.table())
    print()
    print(f"Machine: {bench.machine()}; {time.monotonic() - started:.0f} s in all.")
    for note in bench.notes:
        print(f"Note: {note}.")


if __name__ == "__main__":
    main()
