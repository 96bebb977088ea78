#!/usr/bin/env python3
"""Corpus sessions in the daemon, flat out, against Shakespeare. See BENCHMARKS.md.

    bench/corpus.py [--corpus-dir DIR] [--seconds S] [--rounds R] [--monkeys N] [--entries E]
                    [--full-chunk K] [--full-seconds LIMIT] [--skip-full]

Each round starts a release monkeyd (its own state directory, corpus_dir =
DIR) and measures, one after the other:

- a flat-out corpus session `shakespeare` at chunk 9, first, in the fresh
  daemon: windows checked per second of daemon CPU (STATUS `windows=`; CPU
  is utime + stime of every thread, /proc/PID/stat) and of wall time; the
  wall rate projects Anderson's run, the hours to 99.99 % of the letters by
  the odds' formula (`monkeyctl odds --corpus DIR --chunk 9`); the daemon's
  RSS with it;
- then a plain flat-out session (the default alphabet, target
  `tobeornottobe`): characters typed per second of daemon CPU and of wall
  time, to set beside the windows;
- the start-up with the (stopped) corpus session: the daemon stopped
  (SIGTERM) and started on the same state directory, the time to its first
  PING answer and to the session's first STATUS, and its RSS then.

max_entries is --entries (10): a flat-out batch's kept entries are the ones
made into texts, so retention is part of the shape.

Then, once: a real run at chunk --full-chunk (7) flat out until every letter
is covered (or --full-seconds pass), coverage (covered / corpus_chars)
sampled beside STATUS `expected_coverage`, and the windows at which 99.99 %
was reached beside the formula's.

The corpus is fetched with scripts/fetch-corpus into a temporary directory
unless --corpus-dir holds `shakespeare`. Needs `swift build -c release`.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flatout import Client, cpu_seconds  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Where monkeyd and monkeyctl are: --binaries (bench/compare.py sets it).
BINARIES = os.path.join(ROOT, ".build", "release")


def status(client, session):
    lines = client.request(f"STATUS {session}")
    record = " ".join(lines[:-1] if len(lines) > 1 else lines)
    return dict(field.partition("=")[::2] for field in record.split() if "=" in field)


def resident_mib(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as file:
        for line in file:
            key, _, value = line.partition(":")
            fields[key] = value.split()
    return int(fields["VmRSS"][0]) / 1024, int(fields["VmHWM"][0]) / 1024


def odds_windows(corpus_dir, chunk, coverage=None):
    arguments = [os.path.join(BINARIES, "monkeyctl"), "odds", "--corpus", os.path.join(corpus_dir, "shakespeare"),
                 "--chunk", str(chunk)]
    if coverage is not None:
        arguments += ["--coverage", str(coverage)]
    text = subprocess.run(arguments, capture_output=True, text=True, check=True).stdout
    match = re.search(r"after ([0-9.e+]+) windows", text) or re.search(r"([0-9.]+e\+[0-9]+) windows", text)
    if not match:
        raise SystemExit(f"cannot read the windows from monkeyctl odds:\n{text}")
    return float(match.group(1))


class Daemon:
    def __init__(self, directory, corpus_dir, entries):
        self.directory = directory
        self.configuration = os.path.join(directory, "monkeyd.conf")
        with open(self.configuration, "w") as file:
            file.write(f"corpus_dir = {corpus_dir}\nmax_entries = {entries}\n")
        self.path = os.path.join(directory, "monkeyd.sock")
        self.process = None

    def start(self):
        began = time.monotonic()
        self.process = subprocess.Popen(
            [os.path.join(BINARIES, "monkeyd"), "--socket", self.path, "--state-dir",
             os.path.join(self.directory, "state"), "--config", self.configuration],
            stderr=subprocess.DEVNULL)
        client = Client(self.path)
        client.request("PING")
        return client, time.monotonic() - began

    def stop(self):
        if self.process:
            self.process.terminate()
            self.process.wait(timeout=60)
            self.process = None

    def kill(self):
        if self.process:
            self.process.kill()
            self.process.wait()
            self.process = None


def measure(client, pid, session, field, seconds):
    """(per daemon CPU-second, per wall-second, cores) of STATUS field `field` × factor over `seconds`."""
    time.sleep(0.5)  # the threads start and the first batches come
    first = int(status(client, session)[field])
    cpu, wall = cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)
    last = int(status(client, session)[field])
    cpu, wall = cpu_seconds(pid) - cpu, time.monotonic() - wall
    return (last - first) / cpu, (last - first) / wall, cpu / wall


def one_round(arguments, corpus_dir, windows_9):
    with tempfile.TemporaryDirectory(prefix="monkeyd-corpus.") as directory:
        daemon = Daemon(directory, corpus_dir, arguments.entries)
        try:
            client, _ = daemon.start()
            pid = daemon.process.pid
            # The corpus session first, in a fresh daemon, for its RSS.
            began = time.monotonic()
            client.request(f"START shakespeare interval=0 monkeys={arguments.monkeys} corpus=shakespeare chunk=9")
            start_seconds = time.monotonic() - began
            indexed_rss, _ = resident_mib(pid)
            windows_cpu, windows_wall, windows_cores = measure(client, pid, "shakespeare", "windows",
                                                               arguments.seconds)
            rss, peak = resident_mib(pid)
            client.request("STOP shakespeare")
            client.request(f"START plain interval=0 monkeys={arguments.monkeys} target=tobeornottobe")
            typed_cpu, typed_wall, typed_cores = measure(client, pid, "plain", "typed", arguments.seconds)
            client.request("DELETE plain")
            typed_cpu *= arguments.monkeys
            typed_wall *= arguments.monkeys
            daemon.stop()
            # From the exec to the first PING answered, then to the session's STATUS.
            client, answered = daemon.start()
            began = time.monotonic()
            status(client, "shakespeare")
            status_after = answered + time.monotonic() - began
            restarted_rss, _ = resident_mib(daemon.process.pid)
        finally:
            daemon.kill()
    return {
        "plain_cpu": typed_cpu / 1e6, "plain_wall": typed_wall / 1e6, "plain_cores": typed_cores,
        "windows_cpu": windows_cpu / 1e6, "windows_wall": windows_wall / 1e6, "windows_cores": windows_cores,
        "hours": windows_9 / windows_wall / 3600, "start_ms": start_seconds * 1e3,
        "indexed_rss": indexed_rss, "rss": rss, "hwm": peak, "restarted_rss": restarted_rss,
        "first_answer_ms": answered * 1e3, "status_ms": status_after * 1e3,
    }


def full_run(arguments, corpus_dir, chunk, limit):
    windows_goal = odds_windows(corpus_dir, chunk)
    samples, reached = [], None
    with tempfile.TemporaryDirectory(prefix="monkeyd-corpus-full.") as directory:
        daemon = Daemon(directory, corpus_dir, arguments.entries)
        try:
            client, _ = daemon.start()
            pid = daemon.process.pid
            client.request(f"START full interval=0 monkeys={arguments.monkeys} corpus=shakespeare chunk={chunk}")
            began, cpu = time.monotonic(), cpu_seconds(pid)
            next_sample = 1e8
            while time.monotonic() - began < limit:
                fields = status(client, "full")
                windows = int(fields["windows"])
                coverage = int(fields["covered"]) / int(fields["corpus_chars"])
                if windows >= next_sample:
                    samples.append((windows, coverage, float(fields["expected_coverage"])))
                    next_sample = windows * 1.5
                if reached is None and coverage >= 0.9999:
                    reached = windows
                    samples.append((windows, coverage, float(fields["expected_coverage"])))
                if coverage >= 1:
                    samples.append((windows, coverage, float(fields["expected_coverage"])))
                    break
                time.sleep(0.05)
            wall, cpu = time.monotonic() - began, cpu_seconds(pid) - cpu
            fields = status(client, "full")
        finally:
            daemon.kill()
    return {"goal": windows_goal, "reached": reached, "samples": samples, "wall": wall, "cpu": cpu,
            "windows": int(fields["windows"]), "covered": int(fields["covered"]),
            "characters": int(fields["corpus_chars"]), "complete": fields.get("works_complete")}


def corpus_directory(arguments, scratch):
    if arguments.corpus_dir and os.path.isdir(os.path.join(arguments.corpus_dir, "shakespeare")):
        return os.path.abspath(arguments.corpus_dir)
    directory = os.path.abspath(arguments.corpus_dir or os.path.join(scratch, "corpora"))
    subprocess.run([os.path.join(ROOT, "scripts", "fetch-corpus"), "shakespeare", directory], check=True)
    return directory


def spread(values, digits=0):
    text = f"{{:,.{digits}f}}"
    middle = text.format(statistics.median(values))
    return middle if len(values) < 2 else f"{middle} ({text.format(min(values))}–{text.format(max(values))})"


# The figures of each round by the names bench/compare.py prints.
FIGURES = {
    "windows_cpu": "corpus, chunk 9: M windows per daemon CPU-second",
    "windows_wall": "corpus, chunk 9: M windows per wall-second",
    "plain_cpu": "corpus bench, plain flat out: M characters per daemon CPU-second",
    "hours": "Anderson's run projected: hours",
    "indexed_rss": "corpus, chunk 9: RSS started, MiB",
    "rss": "corpus, chunk 9: RSS after typing, MiB",
    "hwm": "corpus, chunk 9: RSS high-water, MiB",
    "start_ms": "START corpus=shakespeare chunk=9: ms",
    "first_answer_ms": "restart with a corpus session: first PING answer, ms",
    "status_ms": "restart with a corpus session: its STATUS, ms",
}


def write_json(path, results):
    figures = {name: {"monkeyd": [result[key] for result in results]} for key, name in FIGURES.items()}
    figures["corpus, chunk 9: windows per CPU-second / plain characters per CPU-second"] = {
        "monkeyd": [result["windows_cpu"] / result["plain_cpu"] for result in results]}
    with open(path, "w") as file:
        json.dump({"figures": figures}, file)


def main():
    global BINARIES
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus-dir", default="", help="a corpus directory holding shakespeare")
    parser.add_argument("--seconds", type=float, default=5, help="measured window of each flat-out session")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--monkeys", type=int, default=10000)
    parser.add_argument("--entries", type=int, default=10,
                        help="max_entries: a flat-out batch's kept entries are the ones made into texts")
    parser.add_argument("--full-chunk", type=int, default=7)
    parser.add_argument("--full-seconds", type=float, default=900, help="at most this long for the real run")
    parser.add_argument("--skip-full", action="store_true")
    parser.add_argument("--binaries", default=BINARIES, help="where monkeyd and monkeyctl are")
    parser.add_argument("--json", help="also write each round's figures to this file (bench/compare.py reads it)")
    arguments = parser.parse_args()
    BINARIES = os.path.abspath(arguments.binaries)
    with tempfile.TemporaryDirectory(prefix="monkeyd-corpora.") as scratch:
        corpus_dir = corpus_directory(arguments, scratch)
        windows_9 = odds_windows(corpus_dir, 9)
        results = []
        for number in range(arguments.rounds):
            load = os.getloadavg()[0]
            result = one_round(arguments, corpus_dir, windows_9)
            result["load"] = load
            results.append(result)
            print(f"round {number + 1}: " + " ".join(f"{key}={value:.3f}" for key, value in result.items()),
                  file=sys.stderr, flush=True)

        if arguments.json:
            write_json(arguments.json, results)

        def column(key, digits=0):
            return spread([result[key] for result in results], digits)

        print(f"monkeys={arguments.monkeys} max_entries={arguments.entries} rounds={arguments.rounds} seconds={arguments.seconds} "
              f"load {column('load', 1)} at the start of each round")
        print(f"plain flat out: M characters per daemon CPU-second  {column('plain_cpu')}"
              f"  per wall-second {column('plain_wall')}  ({column('plain_cores', 2)} cores)")
        print(f"shakespeare chunk 9: M windows per daemon CPU-second {column('windows_cpu')}"
              f"  per wall-second {column('windows_wall')}  ({column('windows_cores', 2)} cores)")
        print(f"  checking's cost: windows per CPU-second / characters per CPU-second = "
              f"{statistics.median(r['windows_cpu'] / r['plain_cpu'] for r in results):.2f}")
        print(f"Anderson's run projected: {windows_9:.4g} windows to 99.99 % at chunk 9: "
              f"{column('hours', 1)} hours at the wall rate")
        print(f"RSS with the chunk-9 session MiB: started {column('indexed_rss')}, "
              f"after typing {column('rss')} (high-water {column('hwm')}); "
              f"after a restart with it {column('restarted_rss')}")
        print(f"START corpus=shakespeare chunk=9 answered in ms {column('start_ms')}")
        print(f"restart with it: first PING answer ms {column('first_answer_ms')}, "
              f"its STATUS ms {column('status_ms')}")
        if arguments.skip_full:
            return
        load = os.getloadavg()[0]
        full = full_run(arguments, corpus_dir, arguments.full_chunk, arguments.full_seconds)
        print(f"real run at chunk {arguments.full_chunk} (load {load:.1f} at its start): "
              f"{full['windows']:.4g} windows in {full['wall']:.0f} s "
              f"({full['windows'] / full['wall'] / 1e6:.0f} M/s wall, {full['windows'] / full['cpu'] / 1e6:.0f} M "
              f"per CPU-second), covered {full['covered']:,} of {full['characters']:,}, "
              f"works complete {full['complete']}")
        print("| windows | coverage | expected_coverage | coverage / expected |")
        print("|---|---|---|---|")
        worst = 0
        for windows, coverage, expected in full["samples"]:
            ratio = coverage / expected if expected else float("nan")
            worst = max(worst, abs(ratio - 1))
            print(f"| {windows:.3e} | {coverage:.6f} | {expected:.4e} | {ratio:.4f} |")
        print(f"largest difference from expected: {worst * 100:.2f} %")
        if full["reached"]:
            print(f"99.99 % reached after {full['reached']:.4g} windows; the formula: {full['goal']:.4g} "
                  f"({(full['reached'] / full['goal'] - 1) * 100:+.1f} %)")
        else:
            print(f"99.99 % not reached in {arguments.full_seconds:.0f} s; the formula: {full['goal']:.4g}")


if __name__ == "__main__":
    main()
