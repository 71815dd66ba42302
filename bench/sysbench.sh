#!/usr/bin/env bash
# sysbench and mysqlslap against several servers side by side: Petrel
# beside a MariaDB 10.11 anchor with equal durability, Petrel without its
# binlog, or Petrel builds against each other (the cost of a change). It
# is `petrel-lab sysbench` (docs/LAB.md) with its flags taken from the
# environment, for bench/query.sh and `make bench`; flags on the command
# line are passed on after them. The lab's report goes to
# OUT_DIR/lab-<date>/ (report.md, report.html, CSV).
#
# Environment (unset: petrel-lab sysbench's default):
#   SERVERS     ["petrel mariadb"] in order, the first the ratios' anchor:
#               petrel, mariadb, petrel-nobinlog, NAME=PATH (a petrel build)
#   WORKLOADS   ["oltp_point_select oltp_write_only oltp_read_write"]; also
#               mysqlslap, mysqlslap-read, mysqlslap-write
#   THREADS ["4 32"]   RUNS ("workload:threads,threads ...", more runs)
#   DURATION [20] seconds or a Go duration   ROUNDS [2]   SETTLE [5s]
#   TOGETHER=1 every server under load at once
#   TABLES [4]  TABLE_SIZE [10000]  MAX_CONNECTIONS  SLAP_QUERIES  SLAP_ITERATIONS
#   PETREL_ARGS  MARIADB_ARGS (after the lab's durable flags)  SYSBENCH_ARGS
#   PETREL_BINARY  OUT_DIR [bench/out]
# Example: DURATION=5 THREADS=4 WORKLOADS=oltp_point_select SERVERS=mariadb bench/sysbench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	export PATH=/usr/local/go/bin:$PATH
fi
if ! command -v sysbench >/dev/null 2>&1 || { ! command -v mariadbd >/dev/null 2>&1 && [ ! -x /usr/sbin/mariadbd ]; }; then
	bash scripts/deps.sh
fi
dur() { case $1 in *[a-z]) echo "$1" ;; *) echo "${1}s" ;; esac; }
args=(--out "${OUT_DIR:-bench/out}")
for v in SERVERS:servers WORKLOADS:workloads THREADS:threads RUNS:runs ROUNDS:rounds TABLES:tables \
	TABLE_SIZE:table-size MAX_CONNECTIONS:max-connections SLAP_QUERIES:slap-queries \
	SLAP_ITERATIONS:slap-iterations PETREL_ARGS:petrel-args MARIADB_ARGS:mariadb-args \
	SYSBENCH_ARGS:sysbench-args PETREL_BINARY:petrel-binary; do
	name=${v%%:*}
	val=${!name:-}
	if [ -n "$val" ]; then args+=("--${v#*:}" "$val"); fi
done
if [ -n "${DURATION:-}" ]; then args+=(--duration "$(dur "$DURATION")"); fi
if [ -n "${SETTLE:-}" ]; then args+=(--settle "$(dur "$SETTLE")"); fi
if [ "${TOGETHER:-0}" = 1 ]; then args+=(--together); fi
mkdir -p bin
go build -o bin/petrel-lab ./cmd/petrel-lab
exec bin/petrel-lab sysbench "${args[@]}" "$@"
