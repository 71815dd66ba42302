#!/usr/bin/env bash
# Semi-synchronous replication benchmark: Petrel beside a MariaDB 10.11
# anchor, each as a primary and one replica on loopback (temporary
# datadirs, free ports), the replica fetching through a userspace TCP
# proxy (lab.Link) that can add latency. Measures, async vs semi-sync:
#   1. the seed tutorial's WAN experiment: mariadb-slap --auto-generate-sql
#      --concurrency=10 --number-of-queries=1000 at 0 and RTT added, with
#      the "RTT bound" from the counted write commits per client;
#   2. sysbench oltp_write_only at 1 and 32 threads with sync_binlog=1 and
#      sync_binlog=0 (network durability alone);
# with the semi-sync counters and commits per fsync and per ack.
# Fails (exit 1) if replication breaks or semi-sync is not ON during a
# semi-sync run. Prints a markdown report and writes it to
# bench/out/semisync-<date>.md.
#
# The lab measures the same ground with its own load (autocommit INSERTs
# from lab clients, not sysbench), interleaved rounds and an end-state
# check: `petrel-lab run semisync-wan semisync-fallback` (docs/LAB.md).
# This script stays for its mariadb-slap and sysbench figures, which
# docs/PERFORMANCE.md quotes; it is no wrapper of the lab, whose load
# would change what it measures.
#
# Environment (defaults in brackets):
#   SYSTEMS   ["petrel mariadb"]  which systems, in order
#   PHASES    ["slap sysbench"]   which measurements
#   RTT       [90ms]  round trip added by the link in the WAN runs
#   THREADS   ["1 32"], DURATION [20] seconds per sysbench run
#   ROUNDS    [2] repetitions of the sysbench plan, reversed on even rounds
#             (tables show means over rounds)
#   TABLES [4], TABLE_SIZE [10000], OUT_DIR [bench/out]
#   SLAP_CONCURRENCY [10], SLAP_QUERIES [1000]
#   WAIT_TIMEOUT [10m]  bound on each wait for the replica
#   PETREL_BINARY     use this petrel instead of building ./cmd/petrel
#   PETREL_REPLICA_NET_TIMEOUT [0]  replica_net_timeout of the Petrel replica
#                     (0: Petrel's 10 s default)
#   PETREL_ARGS, MARIADB_ARGS, MARIADB_REPLICA_ARGS, SYSBENCH_ARGS
#                     extra/replacement flags
# Example: DURATION=3 THREADS=4 SYSTEMS=petrel bench/semisync.sh
#
# The orchestration is bench/cmd/semisync (Go, using package lab); it stops
# every server and removes their datadirs on exit, including on ^C.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	export PATH=/usr/local/go/bin:$PATH
fi
if ! command -v sysbench >/dev/null 2>&1 || ! command -v mariadb-slap >/dev/null 2>&1 ||
	{ ! command -v mariadbd >/dev/null 2>&1 && [ ! -x /usr/sbin/mariadbd ]; }; then
	bash scripts/deps.sh
fi
exec go run ./bench/cmd/semisync "$@"
