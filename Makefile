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

.PHONY: all build deps run test test-unit lint format man-lint clean bench

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

## run: the main job — a daemon in the foreground with a session typing and its numbered tail.
run: build
	scripts/demo $(BIN)

## test: every test, the formatter check and the man page lint.
test: deps lint man-lint
	$(SWIFT) build --build-tests
	@$(SWIFT) test --skip-build 2>&1 | tee .build/test-output.txt | grep --line-buffered -vE '^(✔|◇|↳)|passed after'; \
	status=$${PIPESTATUS[0]}; scripts/test-summary .build/test-output.txt || status=1; exit $$status

## bench: monkeyd against redis-server, side by side (see BENCHMARKS.md); not part of `make test`.
bench: deps
	@missing=""; for p in redis-server gcc python3; do command -v $$p >/dev/null || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q -o DPkg::Lock::Timeout=600 $$missing; \
	fi
	$(SWIFT) build -c release
	python3 bench/bench.py $(BENCH_FLAGS)

lint:
	$(SWIFT_FORMAT) lint --strict --recursive --configuration .swift-format Sources Tests Package.swift

format:
	$(SWIFT_FORMAT) --in-place --recursive --configuration .swift-format Sources Tests Package.swift

man-lint:
	mandoc -T lint -W warning $(MANPAGES)

clean:
	rm -rf .build
