#!/usr/bin/env bash
# Query speed beyond point lookups (issue 18): Petrel beside a MariaDB
# 10.11 anchor with equal durability, one interleaved run, one table.
#   sysbench oltp_point_select, oltp_read_only, oltp_read_write,
#     select_random_points, select_random_ranges at 4 and 32 threads;
#   the seed's mysqlslap --auto-generate-sql at concurrency 10 and 50
#     (100 queries per client: the seed's 1000 at 10, 5000 at 50);
#   oltp_read_write at 1, 10, 100, 300, 1000 and 3000 client threads
#     (the seed 002 curve), max_connections raised on both servers.
# The lab's report (throughput, p95, ratios to Petrel's) is written to
# bench/out/lab-<date>/. It is bench/sysbench.sh (petrel-lab sysbench) with
# these settings; every variable of that script can still be set.
#
#   QUICK=1  a short check (3 s runs, 1 round, threads 4, curve 1 10 100,
#            mysqlslap at 10): proves the script works, measures nothing.
# Example: QUICK=1 bench/query.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${QUICK:-0}" = 1 ]; then
	: "${DURATION:=3}" "${ROUNDS:=1}" "${SETTLE:=1}" "${THREADS:=4}"
	: "${RUNS:=mysqlslap:10 oltp_read_write:1,10,100}"
else
	: "${DURATION:=20}" "${ROUNDS:=2}" "${SETTLE:=5}" "${THREADS:=4 32}"
	: "${RUNS:=mysqlslap:10,50 oltp_read_write:1,10,100,300,1000,3000}"
fi
: "${WORKLOADS:=oltp_point_select oltp_read_only oltp_read_write select_random_points select_random_ranges}"
: "${MAX_CONNECTIONS:=4000}"
# Deadlocks (1213) and lock wait timeouts (1205) under thousands of
# clients are counted as ignored errors in the report, not fatal.
: "${SYSBENCH_ARGS:=--mysql-ignore-errors=1213,1205}"
# 3000 clients: a descriptor each in sysbench and in the server.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
export DURATION ROUNDS SETTLE THREADS RUNS WORKLOADS MAX_CONNECTIONS SYSBENCH_ARGS
exec bash bench/sysbench.sh "$@"
