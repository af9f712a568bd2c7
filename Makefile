# schedlab — everything a fresh machine with Go needs. `make help` lists targets.
GO       ?= go
OUT      ?= out
PKGS     := ./...
BIN      := bin/schedlab

.PHONY: help build run test bench bench-ci lint reproduce clean

help:
	@echo "make run        the whole pipeline on the quick preset, into $(OUT)/"
	@echo "make test       all tests, with the race detector, in random order"
	@echo "make bench      every benchmark (long); make bench-ci runs each once"
	@echo "make lint       gofmt, go vet and go mod tidy must leave no diff"
	@echo "make reproduce  the nightly preset into $(OUT)/nightly"
	@echo "make build      $(BIN)"
	@echo "make clean      remove $(OUT)/ and bin/"

build:
	$(GO) build -o $(BIN) ./cmd/schedlab

run: build
	./$(BIN) run --preset quick --out $(OUT)

test:
	$(GO) test -race -shuffle=on $(PKGS)

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

# Every benchmark once, so that none rots; part of CI.
bench-ci:
	$(GO) test -run '^$$' -bench . -benchtime 1x $(PKGS)

lint:
	@test -z "$$(gofmt -l .)" || { echo "gofmt would change:"; gofmt -l .; exit 1; }
	$(GO) vet $(PKGS)
	$(GO) mod tidy -diff

reproduce: build
	./$(BIN) run --preset nightly --out $(OUT)/nightly

clean:
	rm -rf $(OUT) bin
