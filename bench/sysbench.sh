#!/usr/bin/env bash
# sysbench 1.0 OLTP benchmark: Petrel beside a MariaDB 10.11 anchor with
# equal durability (binlog, sync_binlog=1, innodb_flush_log_at_trx_commit=1,
# 512M buffer pool), each on a temporary datadir and a free port.
# Prints a markdown table (TPS, QPS, Petrel/MariaDB ratios, p95 latency) and
# writes it to bench/out/sysbench-<date>.md.
#
# Environment (defaults in brackets):
#   SERVERS     ["petrel mariadb"]  which servers, in order (also: petrel-nobinlog)
#   WORKLOADS   ["oltp_point_select oltp_write_only oltp_read_write"]
#   THREADS     ["4 32"]
#   DURATION    [20]  seconds per run
#   ROUNDS      [2]   rounds; every run of a round goes through each server
#                     in turn, in SERVERS order on odd rounds, reversed on even
#   SETTLE      [5s]  pause before each run; tables show means over rounds
#   TABLES [4], TABLE_SIZE [10000], OUT_DIR [bench/out]
#   PETREL_BINARY  use this petrel instead of building ./cmd/petrel
#   RUNS        [""]  more measurements, "workload:threads,threads ...";
#               "mysqlslap:10,50" runs the seed's mysqlslap --auto-generate-sql
#               at those concurrencies (SLAP_QUERIES [100] queries per client)
#   MAX_CONNECTIONS  [unset]  SET GLOBAL max_connections on every server
#   PETREL_ARGS, MARIADB_ARGS, SYSBENCH_ARGS  extra/replacement flags
#               (SYSBENCH_ARGS splits on spaces only: sysbench lists take commas)
# bench/query.sh runs issue 18's query benchmark through this script.
# Example: DURATION=5 THREADS=4 WORKLOADS=oltp_point_select SERVERS=mariadb bench/sysbench.sh
#
# The orchestration is bench/cmd/sysbench (Go, using package lab): every
# server is up for the whole run (only the one measured is under load); it
# stops them and removes their datadirs on exit, including on ^C.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	export PATH=/usr/local/go/bin:$PATH
fi
if ! command -v sysbench >/dev/null 2>&1 || { ! command -v mariadbd >/dev/null 2>&1 && [ ! -x /usr/sbin/mariadbd ]; }; then
	bash scripts/deps.sh
fi
mkdir -p bin
go build -o bin/bench-sysbench ./bench/cmd/sysbench
exec bin/bench-sysbench "$@"
