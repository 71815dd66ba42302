#!/usr/bin/env bash
# What a change costs: several Petrel binaries side by side under the same
# sysbench workloads, interleaved rounds, server CPU per transaction and
# TPS, each binary as paired per-round ratios against the first (median,
# range, mean with a 95% confidence interval). Writes
# bench/out/abcost-<date>.md.
#
# Environment (defaults in brackets):
#   BINARIES   (required) "name=path ...", the first is the anchor; a path
#              of "build" builds ./cmd/petrel
#   WORKLOADS  ["oltp_point_select oltp_read_write"]   THREADS ["4 32"]
#              sysbench tests, or mysqlslap's --auto-generate-sql load:
#              "mysqlslap" (the seed's mixed load), "mysqlslap-read",
#              "mysqlslap-write", at THREADS clients, SLAP_QUERIES [100]
#              queries per client, SLAP_ITERATIONS [3] (a query counts as
#              a transaction)
#   ROUNDS [8]  DURATION [8s]  SETTLE [1s]  TABLES [4]  TABLE_SIZE [10000]
#   PETREL_ARGS  extra server flags for every binary;  OUT_DIR [bench/out]
#   TOGETHER [0]  1: all binaries run each measurement at the same time,
#              each under its own sysbench, so the host's drift hits them
#              alike (they share the cores: compare ratios, not absolutes)
# Example (the cost of the last commit):
#   git worktree add /tmp/prev HEAD~1 && (cd /tmp/prev && go build -o /tmp/petrel-prev ./cmd/petrel)
#   BINARIES="prev=/tmp/petrel-prev now=build" bash bench/abcost.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	export PATH=/usr/local/go/bin:$PATH
fi
command -v sysbench >/dev/null 2>&1 || bash scripts/deps.sh
mkdir -p bin
go build -o bin/bench-abcost ./bench/cmd/abcost
exec bin/bench-abcost "$@"
