# schedlab — everything a fresh machine with Go needs. `make help` lists targets.
GO       ?= go
OUT      ?= out
PKGS     := ./...
FUZZTIME ?= 30s
# A large seed (a preset) can keep the fuzzer minimising for the whole
# FUZZTIME; bound that.
FUZZFLAGS ?= -fuzzminimizetime=10s
BIN      := bin/schedlab
# The revision, stamped into the binary so that manifest, report and
# `schedlab version` know it even when Go's VCS stamping is off
# (GOFLAGS=-buildvcs=false, common in CI images); Go's own stamp wins when
# it has one.
REVISION ?= $(shell git describe --always --dirty 2>/dev/null)
LDFLAGS  := -X github.com/schedlab/schedlab/pipeline.Revision=$(REVISION)
# Build tags of bin/schedlab: TAGS=temporal links the Temporal executor
# (schedlab worker, --executor temporal://), which the default build leaves
# out: its SDK and gRPC would lengthen a first build (docs/distributed.md).
TAGS     ?=

.PHONY: help build run test test-race test-norace test-seeds test-deps test-distributed bench bench-ci fuzz lint reproduce paper-das paper-marl-map paper-marl-k20 clean

help:
	@echo "make run        the whole pipeline on the quick preset, into $(OUT)/"
	@echo "make test       all tests, with the race detector, in random order (make test-race),"
	@echo "                then the tests that do less under it, without it (make test-norace)"
	@echo "make test-seeds the quick preset at seeds SEEDS (default $(SEEDS)), runs in parallel"
	@echo "make test-deps  install the DuckDB client the Parquet read-back checks use (needs node, npm)"
	@echo "make test-distributed  the Temporal executor against an in-process Temporal server"
	@echo "make bench      every benchmark (long); make bench-ci runs each once"
	@echo "make fuzz       every fuzz target for FUZZTIME each (default $(FUZZTIME)); not part of test"
	@echo "make lint       gofmt, go vet and go mod tidy must leave no diff"
	@echo "make reproduce  the nightly preset into $(OUT)/nightly"
	@echo "make paper-das  DAS Table 1 at the paper's budget: every DAS-paper model trained on each"
	@echo "                cluster at three seeds over the learning-rate grid (CPU-days; EXECUTOR=)"
	@echo "make build      $(BIN) (TAGS=temporal: with the Temporal executor)"
	@echo "make clean      remove $(OUT)/ and bin/"

# scripts/build.sh is go build with a line every 10 s of how far it is: a
# first build compiles every dependency for minutes (README.md gives the
# measured figures), and silence would look like a hang.
build:
	@GO='$(GO)' scripts/build.sh $(BIN) -tags '$(TAGS)' -ldflags '$(LDFLAGS)'

run:
	@echo "make run: building $(BIN) (a first build compiles about 600 packages: minutes; later ones, seconds)"
	@GO='$(GO)' scripts/build.sh $(BIN) -tags '$(TAGS)' -ldflags '$(LDFLAGS)'
	./$(BIN) run --preset quick --out $(OUT)

# go test's default limit is 10 minutes per package; stages took 759 s
# under -race on 2 cores shared with a dozen jobs, so a busy machine would
# fail there with a goroutine dump. 30 minutes still stops a hung test.
test: test-race test-norace

# Test binaries are linked without DWARF (-ldflags=-w): go test links
# every package's binary afresh on each run (-shuffle makes results
# uncacheable), and DWARF is about a quarter of a link's CPU (cmd/schedlab
# under -race: 11.5 -> 8.3 CPU s). Nothing in a test reads it: stack
# traces and race reports come from the Go symbol tables, which stay.
TESTLDFLAGS ?= -ldflags=-w

test-race:
	$(GO) test -race -shuffle=on -timeout 30m $(TESTLDFLAGS) $(PKGS)

# The race detector slows the numeric code five- to tenfold, so some
# packages' slowest tests (learning, fits, and the end-to-end runs of
# stages and cmd/schedlab) shorten or skip parts of themselves under it (a
# test file built only with it, //go:build race, sets their raceEnabled).
# Those tests run again here without it, in full, so that each can fail in
# CI:
# the tests of those packages that read raceEnabled, found by
# scripts/race-gated-tests.sh, so that a new one joins by itself (every
# other test already ran, whole, under the detector);
# distributed/temporaltest is a module of its own (test-distributed).
RACE_PKGS = $(sort $(patsubst %/,%,$(dir $(shell grep -rl --include='*_test.go' '^//go:build race' . | grep -v '^./distributed/temporaltest/'))))

# -vet=off: go test's vet checks ran on these packages in test-race (the
# same files but for race_off_test.go's one constant), and make lint vets
# all of them without the race tag.
test-norace:
	pattern=$$(scripts/race-gated-tests.sh $(RACE_PKGS)) && \
	$(GO) test -shuffle=on -timeout 30m -vet=off $(TESTLDFLAGS) -run "$$pattern" $(RACE_PKGS)

# Every preset must complete at every seed (issue 30): the quick preset
# once per seed from the first to the last of SEEDS, as many runs at once
# as there are CPUs, each into its own directory, without the race
# detector (scripts/test-seeds.sh; CI runs seeds 1-100).
SEEDS ?= 1 100
test-seeds: build
	scripts/test-seeds.sh $(BIN) $(SEEDS) quick

# The DuckDB client (npm package @duckdb/node-api) through which the
# Parquet read-back checks query our files, installed once into the user's
# cache directory, where internal/duckdbtest looks (quick when it is
# there). Needs node and npm; fails, rather than skips, without them.
test-deps:
	SL_TEST_REQUIRE_DUCKDB=1 $(GO) test -count=1 -run '^TestQuery$$' ./internal/duckdbtest

# The Temporal executor end to end, against Temporal's in-process server:
# a module of its own (distributed/temporaltest), so that the server's
# dependencies stay out of schedlab's module, binary and `make test`.
test-distributed:
	cd distributed/temporaltest && $(GO) test -count=1 -v -timeout 30m ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

# Every benchmark once, so that none rots; part of CI.
bench-ci:
	$(GO) test -run '^$$' -bench . -benchtime 1x $(PKGS)

# Every fuzz target in the repository (each `func Fuzz` in a _test.go
# file), one after another for FUZZTIME each; FUZZFLAGS adds go test flags
# (e.g. -parallel 2). New inputs that fail land in the package's
# testdata/fuzz/<target>/, where they become regression tests of make test.
fuzz:
	@fail=""; \
	for f in $$(grep -rl --include='*_test.go' '^func Fuzz' . | sort); do \
		pkg=./$$(dirname $${f#./}); \
		for t in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$f); do \
			echo "== $$t ($$pkg, $(FUZZTIME))"; \
			$(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $(FUZZFLAGS) $$pkg || fail="$$fail $$pkg:$$t"; \
		done; \
	done; \
	if [ -n "$$fail" ]; then echo "fuzz targets that failed:$$fail"; exit 1; fi

lint:
	@test -z "$$(gofmt -l .)" || { echo "gofmt would change:"; gofmt -l .; exit 1; }
	$(GO) vet $(PKGS)
	$(GO) mod tidy -diff

reproduce: build
	./$(BIN) run --preset nightly --out $(OUT)/nightly

# The paper preset's das-table1 alone: DAS (Algorithm 1 and MAPPO), its
# ablations, DL² and RIFLING trained on each of Small, Medium and Large at
# three seeds, 50 episodes of 1000 jobs per learning rate of the paper's
# grid; the trainings' CPU seconds land in eval/timings.parquet. Not run
# by any test or CI job. EXECUTOR=temporal://HOST:PORT spreads the
# trainings over workers.
EXECUTOR ?= local
paper-das: build
	./$(BIN) run --preset paper --only das-table1 --executor $(EXECUTOR) --out $(OUT)/paper-das

# MARL-GNN at its paper's operating point (issue 45; configs/*.yaml,
# CPU-hours in docs/measurements.md). paper-marl-map: the sensitivity map
# at k = 8 (load ×1/×3/×5, every socket rule, communication ×1/×6/×12/×60,
# interference ×1/×2, three seeds, marl-device retrained per point).
# paper-marl-k20: marl-arrivals at k = 20 with three marl-device models.
# Not run by any test or CI job.
paper-marl-map: build
	./$(BIN) run --config configs/marl-map.yaml --executor $(EXECUTOR) --out $(OUT)/paper-marl-map

paper-marl-k20: build
	./$(BIN) run --config configs/marl-k20.yaml --executor $(EXECUTOR) --out $(OUT)/paper-marl-k20

clean:
	rm -rf $(OUT) bin
