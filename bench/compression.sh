#!/usr/bin/env bash
# Binary log transaction compression benchmark (issue 17): binlog bytes per
# transaction with binlog_transaction_compression OFF and ON (zstd) on
# sysbench oltp_write_only and on a text-heavy workload, and the primary's
# sysbench TPS with and without, in interleaved rounds on one server.
# Prints a markdown report and writes it to bench/out/compress-<date>.md.
#
# Environment (defaults in brackets):
#   ROUNDS [3], DURATION [10s] per sysbench run, THREADS [4], TABLES [2],
#   TABLE_SIZE [10000], LEVEL [3] (binlog_transaction_compression_level_zstd),
#   TEXT_TXNS [300] text transactions per run
#   MODE [bytes]; MODE=cost: the primary's TPS and CPU per transaction
#     (perf stat -e task-clock on the server) over EVENTS [20000] sysbench
#     oltp_write_only transactions per run, OFF vs ON, interleaved rounds
#   PETREL_BINARY  use this petrel instead of building ./cmd/petrel
#   PETREL_ARGS    extra server flags
# Example (short): ROUNDS=2 DURATION=5s bench/compression.sh
#          (cost):  MODE=cost ROUNDS=3 THREADS=4 EVENTS=20000 bench/compression.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	export PATH=/usr/local/go/bin:$PATH
fi
if ! command -v sysbench >/dev/null 2>&1; then
	bash scripts/deps.sh
fi
mkdir -p bin
go build -o bin/bench-compress ./bench/cmd/compress
exec bin/bench-compress "$@"
