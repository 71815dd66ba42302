#!/usr/bin/env bash
# WAN benchmarks of issue 17 across the packet-level emulator (lab.WAN:
# two network namespaces joined through TUN devices by a userspace
# forwarder, so both ends' kernel TCP stacks see the delay and the loss).
# Needs root (namespaces, TUN), sysbench, the ip binary.
#   fanout:     a primary on side 0, REPLICAS replicas on side 1, connected
#               directly vs through one relay on side 1, in ROUNDS
#               interleaved rounds of DURATION seconds of sysbench
#               oltp_write_only (THREADS threads) on the primary: WAN bytes
#               both ways, primary CPU, replica staleness p50/p99/max
#               (now minus when the primary passed the replica's GTID
#               count; every replica, every 100 ms); every replica
#               must end with the primary's gtid_executed (else exit 1).
#   congestion: one primary, one replica at 2*CC_DELAY RTT, for each loss in
#               CC_LOSSES and each replication_tcp_congestion_control in
#               CC_ALGOS: a BACKLOG-second backlog written with the IO
#               thread stopped, then the catch-up timed (CATCHUP_TIMEOUT),
#               then the staleness under LAG_RATE transactions/s.
# Prints a markdown report and writes it to bench/out/fanout-<date>.md.
#
# The lab measures the same ground with its own load (autocommit INSERTs
# from lab clients, not sysbench), interleaved rounds and an end-state
# check: `petrel-lab run fan-out bbr-vs-cubic` (docs/LAB.md). This script
# stays for its sysbench figures, which docs/PERFORMANCE.md quotes; it
# starts, wires and stops its servers and the WAN through the lab's
# harness (labrun.StartCluster with NetWAN and Relay) but keeps its own
# sysbench load, which the lab's would change.
#
# Environment (defaults in brackets; SHORT=1 gives the short mode's):
#   PHASES ["fanout congestion"], ROUNDS [3; short 1], REPLICAS [6],
#   DURATION [60; short 10], DELAY [45ms], LOSS [2 (percent)], RATE [50Mbit],
#   CC_DELAY [50ms], CC_LOSSES ["0 1 2 5"; short "0 5"], CC_ALGOS ["bbr cubic"],
#   BACKLOG [60; short 8], CATCHUP_TIMEOUT [10m; short 30s], WAIT_TIMEOUT [10m],
#   LAG_RATE [100] (after each catch-up, lag under this many transactions/s
#   for BACKLOG seconds; 0 skips),
#   THREADS [16], TABLES [4], TABLE_SIZE [10000; short 2000], OUT_DIR,
#   PETREL_BINARY, PETREL_ARGS, SYSBENCH_ARGS,
#   SOURCE_OPTIONS (appended to every CHANGE REPLICATION SOURCE, e.g.
#   ", SOURCE_COMPRESSION_ALGORITHMS = 'zstd'")
# Short mode (about 4 minutes): SHORT=1 bench/fanout.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	export PATH=/usr/local/go/bin:$PATH
fi
if ! command -v sysbench >/dev/null 2>&1; then
	bash scripts/deps.sh
fi
mkdir -p bin
go build -o bin/bench-fanout ./bench/cmd/fanout
exec bin/bench-fanout "$@"
