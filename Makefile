# Petrel. `make help` lists the targets.

GO ?= go
# The command `make run` executes; switch it here (e.g. to a cluster
# subcommand) without touching the target.
RUN_CMD ?= bin/petrel cluster --datadir ./cluster --base-port 3306 --replicas 2 --root-password petrel
# Per-target time for `make fuzz`.
FUZZTIME ?= 10s

.DEFAULT_GOAL := build
.PHONY: help build lab run test vet bench bench-repl fuzz deps

help:
	@echo "make build   go build -o bin/petrel ./cmd/petrel"
	@echo "make lab     go build -o bin/petrel-lab ./cmd/petrel-lab (petrel lab list|run)"
	@echo "make run     build, then: $(RUN_CMD)"
	@echo "make test    scripts/deps.sh, go vet ./..., go test -count=1 -timeout 60m ./..."
	@echo "make bench   bench/sysbench.sh (env: SERVERS WORKLOADS THREADS DURATION)"
	@echo "make bench-repl  petrel-lab run replication-sysbench --quick (lag and catch-up by applier variant)"
	@echo "make fuzz    every Go fuzz target for FUZZTIME=$(FUZZTIME)"
	@echo "make deps    scripts/deps.sh"

build:
	$(GO) build -o bin/petrel ./cmd/petrel

lab:
	$(GO) build -o bin/petrel-lab ./cmd/petrel-lab

run: build
	$(RUN_CMD)

deps:
	bash scripts/deps.sh

vet:
	$(GO) vet ./...

# Sequential in one recipe so `make -j` cannot vet before deps finish.
# PETREL_LAB_STRICT=1: once deps.sh has run, a missing MariaDB is a test
# failure, not a skip.
test:
	bash scripts/deps.sh
	$(GO) vet ./...
	PETREL_LAB_STRICT=1 $(GO) test -count=1 -timeout 60m ./...

bench:
	bash bench/sysbench.sh

bench-repl: lab
	bin/petrel-lab run replication-sysbench --quick

fuzz:
	FUZZTIME=$(FUZZTIME) bash scripts/fuzz.sh
