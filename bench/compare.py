#!/usr/bin/env python3
"""Two builds of monkeyd side by side: every bench, the builds alternating.

    bench/compare.py OLD NEW [--rounds R] [--bench-flags "..."] [--flatout-flags "..."]
                     [--corpus-flags "..."] [--skip-bench] [--skip-flatout] [--skip-corpus]
                     [--corpus-dir DIR]

OLD and NEW are each a directory holding monkeyd and monkeyctl (a release
build) or a git revision of this repository, which is checked out in a
worktree under .build/compare and built there (`swift build -c release`;
kept for the next comparison of the same commit).

Each round runs, for one build and then the other (the order swapped from
round to round, so that a drift of the machine does not favour either),
bench/bench.py with --pairs 1, bench/flatout.py with --rounds 1 and
bench/corpus.py with --rounds 1 --skip-full, each writing its figures as
JSON. The table then gives, for every figure, the median and spread of each
build over the rounds, new / old, the peer's ratio (monkeyd / redis, where
bench.py measured a peer) of each build, and bench.py's target judged on
the new build. A figure whose new / old moves less than the spread of the
two builds' runs is no change: read the spreads before the ratio.
"""

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import Bench  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")


def log(message):
    print(f"compare: {message}", file=sys.stderr, flush=True)


def binaries(build):
    """The directory of a build's monkeyd and monkeyctl: `build` itself, or
    the release build of the git revision `build` in its worktree."""
    if os.path.isfile(os.path.join(build, "monkeyd")):
        return os.path.abspath(build), build
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--verify", f"{build}^{{commit}}"],
                            capture_output=True, text=True)
    if commit.returncode != 0:
        sys.exit(f"compare: {build!r} is neither a directory holding monkeyd nor a git revision")
    commit = commit.stdout.strip()
    tree = os.path.join(ROOT, ".build", "compare", commit[:12])
    if not os.path.isdir(tree):
        log(f"checking out {build} ({commit[:12]}) in {tree}")
        subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", tree, commit], check=True,
                       stdout=subprocess.DEVNULL)
    release = os.path.join(tree, ".build", "release")
    for product in ("monkeyd", "monkeyctl"):
        if not os.path.isfile(os.path.join(release, product)):
            log(f"building {product} of {commit[:12]} (release)")
            subprocess.run(["swift", "build", "-c", "release", "--package-path", tree, "--product", product],
                           check=True, stdout=subprocess.DEVNULL)
    return release, f"{build} ({commit[:12]})"


def run(command, output):
    """Runs one bench; its own log goes to stderr as it comes. The figures
    it wrote, or none (a bench that failed is said and skipped)."""
    log(" ".join(shlex.quote(part) for part in command))
    began = time.monotonic()
    finished = subprocess.run(command, stdout=subprocess.DEVNULL)
    if finished.returncode != 0 or not os.path.exists(output):
        log(f"failed with status {finished.returncode}; its figures are left out of this round")
        return {}, []
    with open(output) as file:
        data = json.load(file)
    os.unlink(output)
    log(f"done in {time.monotonic() - began:.0f} s")
    return data["figures"], data.get("notes", [])


def one_round(directory, release, arguments, corpus_dir):
    """Every bench once for one build: {figure: {"monkeyd": [...], "redis": [...]}} and the notes."""
    figures, notes = {}, []
    output = os.path.join(directory, "figures.json")
    python = sys.executable
    commands = []
    if not arguments.skip_bench:
        commands.append([python, os.path.join(BENCH, "bench.py"), "--binaries", release, "--pairs", "1",
                         *shlex.split(arguments.bench_flags)])
    if not arguments.skip_flatout:
        commands.append([python, os.path.join(BENCH, "flatout.py"), "--monkeyd", os.path.join(release, "monkeyd"),
                         "--rounds", "1", *shlex.split(arguments.flatout_flags)])
    if not arguments.skip_corpus and corpus_dir:
        commands.append([python, os.path.join(BENCH, "corpus.py"), "--binaries", release, "--rounds", "1",
                         "--skip-full", "--corpus-dir", corpus_dir, *shlex.split(arguments.corpus_flags)])
    for command in commands:
        found, said = run(command + ["--json", output], output)
        notes += said
        for figure, columns in found.items():
            for column, values in columns.items():
                figures.setdefault(figure, {}).setdefault(column, []).extend(values)
    return figures, notes


def peer_ratio(columns):
    monkeyd, redis = columns.get("monkeyd", []), columns.get("redis", [])
    if not monkeyd or not redis or statistics.median(redis) == 0:
        return None
    return statistics.median(monkeyd) / statistics.median(redis)


def target(figure, new):
    """bench.py's target for `figure`, judged on the new build's runs."""
    if figure not in Bench.TARGETS:
        return ""
    kind, bound, comparison = Bench.TARGETS[figure]
    monkeyd = new.get("monkeyd", [])
    subject = peer_ratio(new) if kind == "ratio" else (statistics.median(monkeyd) if monkeyd else None)
    if subject is None:
        return ""
    met = {">=": subject >= bound, "<=": subject <= bound, "<": subject < bound}[comparison]
    label = "ratio" if kind == "ratio" else "new"
    return f"{label} {comparison} {Bench.number(bound)}: {'met' if met else 'MISSED'}"


def table(old, new):
    lines = ["| figure | old median (min–max) | new median (min–max) | new/old | monkeyd/redis, old → new | target |",
             "|---|---|---|---|---|---|"]
    for figure in list(dict.fromkeys([*old, *new])):
        before, after = old.get(figure, {}), new.get(figure, {})
        a, b = before.get("monkeyd", []), after.get("monkeyd", [])
        change = "—"
        if a and b and statistics.median(a) != 0:
            change = f"{statistics.median(b) / statistics.median(a):.2f}"
        peers = [peer_ratio(before), peer_ratio(after)]
        peer = "" if peers == [None, None] else " → ".join("—" if r is None else f"{r:.2f}" for r in peers)
        lines.append(f"| {figure} | {Bench.spread(a)} | {Bench.spread(b)} | {change} | {peer} | "
                     f"{target(figure, after)} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", help="the build before: a directory holding monkeyd and monkeyctl, or a git revision")
    parser.add_argument("new", help="the build after, the same way")
    parser.add_argument("--rounds", type=int, default=3, help="runs of every bench per build (A B B A A B ...)")
    parser.add_argument("--bench-flags", default="", help="more arguments for bench/bench.py (e.g. --only ...)")
    parser.add_argument("--flatout-flags", default="", help="more arguments for bench/flatout.py")
    parser.add_argument("--corpus-flags", default="", help="more arguments for bench/corpus.py")
    parser.add_argument("--skip-bench", action="store_true")
    parser.add_argument("--skip-flatout", action="store_true")
    parser.add_argument("--skip-corpus", action="store_true")
    parser.add_argument("--corpus-dir", default="",
                        help="a corpus directory holding shakespeare (default: as `make corpus`, fetched if missing)")
    arguments = parser.parse_args()
    builds = [binaries(arguments.old), binaries(arguments.new)]
    corpus_dir = ""
    if not arguments.skip_corpus:
        corpus_dir = subprocess.run([os.path.join(ROOT, "scripts", "fetch-corpus"), "--dir", arguments.corpus_dir],
                                    capture_output=True, text=True, check=True).stdout.strip()
        if not os.path.isdir(os.path.join(corpus_dir, "shakespeare")):
            fetched = subprocess.run([os.path.join(ROOT, "scripts", "fetch-corpus"), "shakespeare", corpus_dir])
            if fetched.returncode != 0:
                log("no Shakespeare corpus: the corpus bench is left out")
                corpus_dir = ""
    results = [{}, {}]
    notes = []
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="monkeyd-compare.") as directory:
        for number in range(arguments.rounds):
            order = (0, 1) if number % 2 == 0 else (1, 0)
            for which in order:
                release, name = builds[which]
                log(f"round {number + 1}/{arguments.rounds}: {'old' if which == 0 else 'new'}, {name}")
                figures, said = one_round(directory, release, arguments, corpus_dir)
                notes += said
                for figure, columns in figures.items():
                    for column, values in columns.items():
                        results[which].setdefault(figure, {}).setdefault(column, []).extend(values)
    print(f"old: {builds[0][1]}\nnew: {builds[1][1]}\n")
    print(table(*results))
    print()
    print(f"{arguments.rounds} rounds per build, {time.monotonic() - started:.0f} s in all; "
          f"load average {os.getloadavg()[0]:.1f} at the end.")
    for note in dict.fromkeys(notes):
        print(f"Note: {note}.")


if __name__ == "__main__":
    main()
