# loadlab: the two commands a fresh machine needs are `make demo` and `make test`.
GO ?= go
BIN := bin/loadlab

.PHONY: vegeta build demo test test-go test-browser test-kube portability test-soak lint fuzz uplot bench bench-attack bench-origin bench-proxy bench-report bench-plot soak clean

COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null)$(shell git diff --quiet HEAD 2>/dev/null || echo +dirty)

build:
	$(GO) build -ldflags "-X main.commit=$(COMMIT)" -o $(BIN) ./cmd/loadlab

# The main job: the search-flood incident at laptop scale, ending with a summary.
demo: build
	./$(BIN) demo

# Every test: Go tests under the race detector, then the headless-Chromium
# checks of the HTML report (needs Debian's chromium; .ci/run installs it).
test: test-go test-browser

# The real vegeta the differential tests (cmd/loadlab/vegeta*_test.go)
# compare loadlab with, built once from the Go module proxy into a cache
# folder; under CI those tests fail without it, elsewhere they are skipped.
VEGETA_VERSION := v12.13.0
VEGETA_DIR ?= $(HOME)/.cache/loadlab/vegeta
vegeta:
	@if [ ! -x $(VEGETA_DIR)/vegeta ] || [ "$$(cat $(VEGETA_DIR)/version 2>/dev/null)" != "$(VEGETA_VERSION)" ]; then \
		echo "== building vegeta $(VEGETA_VERSION) into $(VEGETA_DIR)"; \
		mkdir -p $(VEGETA_DIR) && GOBIN=$(VEGETA_DIR) $(GO) install github.com/tsenart/vegeta/v12@$(VEGETA_VERSION) && \
		echo $(VEGETA_VERSION) > $(VEGETA_DIR)/version; \
	fi

# The second go test runs the lean client and server, the attack and the
# proxy's pool through the portable fallbacks that macOS, Windows and
# FreeBSD get (-tags loadlab_portable selects the _other.go files on
# Linux too); internal/portability cross-compiles (see make portability).
PORTABLE_PKGS := ./internal/rawconn/... ./internal/harvest/... ./internal/fdtable/... ./internal/http1/... ./internal/attack/... ./internal/proxy/pool/...
# A race-built program sleeps 1 s before it exits (GORACE's atexit_sleep_ms)
# in case a thread still running reports a race; every test binary did, and
# so did every loadlab the cmd/loadlab tests start. The tests' races are
# reported when they happen and still fail the test; without the idle
# second (62 test binaries here, and 6 portable ones) the suite is about half
# a minute shorter on 2 cores. A GORACE of your own comes after this one and
# wins.
RACE_ENV := GORACE="atexit_sleep_ms=0 $(GORACE)"
test-go: vegeta
	$(GO) vet ./...
	$(RACE_ENV) $(GO) test -race -timeout 15m ./...
	$(RACE_ENV) $(GO) test -race -timeout 5m -tags loadlab_portable $(PORTABLE_PKGS)

# Every supported platform, the whole module and the binary (make test
# checks a cheaper part of it; see internal/portability).
portability:
	LOADLAB_PORTABILITY=all $(GO) test -count=1 -timeout 30m -run '^TestBuildsOnEveryPlatform$$' -v ./internal/portability/

test-browser: build
	@if [ -f test/browser/package.json ]; then \
		cd test/browser && npm ci --no-audit --no-fund --silent && LOADLAB_BIN=$(CURDIR)/$(BIN) node --test; \
	fi

# loadlab fleet k8s -apply against a real control plane on loopback:
# Debian's etcd, and kube-apiserver, kube-controller-manager and kubectl
# built once from the published k8s.io/kubernetes module (about 5 minutes
# the first time, cached in ~/.cache/loadlab/kube afterwards).
test-kube:
	@command -v etcd >/dev/null || { echo "test-kube: install Debian's etcd-server"; exit 1; }
	@bin=$$(bash test/kube/build.sh) && LOADLAB_KUBE_BIN=$$bin $(GO) test -race -count=1 -run '^TestFleetKube$$' ./cmd/loadlab

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

# Short fuzzing sessions of every parser (FUZZTIME=30s make fuzz for longer).
# Minimising a new input may take at most 3 s (Go's default, 60 s, let
# targets whose inputs are slow to minimise run a handful of executions in a
# short session); the last progress line shows each target's executions.
FUZZTIME ?= 10s
fuzz:
	@for pkg in $$($(GO) list ./...); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do \
			echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 3s $$pkg 2>&1 > /tmp/loadlab-fuzz.log; grep 'execs:' /tmp/loadlab-fuzz.log | tail -1; \
			grep -q '^ok' /tmp/loadlab-fuzz.log || { cat /tmp/loadlab-fuzz.log; exit 1; }; \
		done; \
	done

# Benchmarks against the peer tools (install nginx, wrk, ... themselves when
# missing); each records its table in bench/HISTORY.md (the current
# figure of each goal in bench/README.md). Minutes each: run on a
# quiet machine.
bench: bench-attack bench-origin bench-proxy bench-report bench-plot
bench-attack:
	bench/attack/run.sh
bench-origin:
	bench/origin/run.sh
bench-proxy:
	bench/proxy/run.sh
bench-report:
	$(GO) run ./bench/report
bench-plot:
	$(GO) run ./bench/plot

# An hour of steady mixed load (origin, proxy, three attacks); fails when a
# process's memory, open files, threads or goroutines keep growing.
# SOAK=3m make soak for a short one (CI runs that).
SOAK ?= 60m
soak:
	$(GO) run ./bench/soak -duration $(SOAK)

# Refresh the vendored uPlot files from npm (web/package.json pins the version).
uplot:
	scripts/update-uplot.sh

clean:
	rm -rf bin
