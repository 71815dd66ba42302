#!/usr/bin/env bash
# Replication benchmark: Petrel beside a MariaDB 10.11 anchor, each as a
# primary and one replica on loopback (temporary datadirs, free ports).
# Two measurements per system under sysbench oltp_write_only at full rate:
#   1. lag: the replica's lag sampled every 100 ms (max, p99, mean) and the
#      Seconds_Behind_Source/Master the server reports;
#   2. catch-up: the applier is stopped during a load, then timed until it
#      has applied the backlog: apply rate / production rate. By default
#      the primary keeps producing meanwhile at half the rate it reached
#      (sysbench --rate), and the catch-up ends when the replica's lag is
#      under 1 s; the report gives the replica's CPU per transaction.
# The replica's rows are compared with the primary's (digest of every
# sbtest table) after each phase; a mismatch fails the run (exit 1).
# Prints a markdown report and writes it to bench/out/repl-<date>.md.
#
# The lab measures the same ground with its own load (autocommit INSERTs
# from lab clients, not sysbench), interleaved rounds and an end-state
# check: `petrel-lab run catch-up parallel-apply` (also catch-up-slow-disk,
# packet-loss, link-cut; docs/LAB.md). This script stays for its sysbench
# figures and MariaDB's applier modes, which docs/PERFORMANCE.md quotes;
# it is no wrapper of the lab, whose load would change what it measures.
#
# Environment (defaults in brackets):
#   SYSTEMS           ["petrel mariadb"]  which systems, in order; each may
#                     name an applier configuration (bench/cmd/repl/variant.go):
#                     petrel/w1 petrel/w4 petrel/w8 (replica_parallel_workers),
#                     petrel/db4 (DATABASE), petrel/w8+co (COMMIT_ORDER
#                     source), petrel/w8+mt16 (16 MiB memtable), mariadb/serial,
#                     mariadb/optimistic-8, mariadb/conservative-4 ...
#   PHASES            ["lag catchup"]  which phases
#   LAG_DURATION      [30]  seconds of load in the lag phase
#   CATCHUP_DURATION  [60]  seconds of load while the applier is stopped
#   CATCHUP_RATE      [half]  production during the catch-up: half (of the
#                     rate while the applier was stopped), off, or txn/s
#   LAG_THREADS       [THREADS]  sysbench threads in the lag phase
#   THREADS [4], TABLES [4], TABLE_SIZE [10000], OUT_DIR [bench/out]
#   WAIT_TIMEOUT      [10m] bound on each wait for the replica
#   PETREL_BINARY     use this petrel instead of building ./cmd/petrel
#   PETREL_ARGS, MARIADB_ARGS, MARIADB_REPLICA_ARGS, SYSBENCH_ARGS
#                     extra/replacement flags
# Example: LAG_DURATION=5 CATCHUP_DURATION=5 bench/replication.sh
# Parallel appliers side by side (issue 16: lag with 32 threads, catch-up
# of a 120 s backlog under half-rate production):
#   LAG_THREADS=32 CATCHUP_DURATION=120 THREADS=16 TABLES=8 SYSTEMS="petrel/w1 petrel/w4
#   petrel/w8 mariadb/serial mariadb/conservative-4 mariadb/conservative-8
#   mariadb/optimistic-4 mariadb/optimistic-8" bench/replication.sh
#
# The orchestration is bench/cmd/repl (Go, using package lab); it stops
# every server and removes their datadirs on exit, including on ^C.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	export PATH=/usr/local/go/bin:$PATH
fi
if ! command -v sysbench >/dev/null 2>&1 || { ! command -v mariadbd >/dev/null 2>&1 && [ ! -x /usr/sbin/mariadbd ]; }; then
	bash scripts/deps.sh
fi
mkdir -p bin
go build -o bin/bench-repl ./bench/cmd/repl
exec bin/bench-repl "$@"
