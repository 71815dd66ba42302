#!/usr/bin/env bash
# WAN benchmarks of issue 17 across the packet-level emulator: the lab's
# fan-out and bbr-vs-cubic experiments (docs/LAB.md), Petrel beside
# MariaDB in interleaved rounds with an end-state check. Needs root
# (namespaces, TUN) and the ip binary.
#   fan-out:      a primary on side 0, replicas on side 1 fed directly or
#                 through one relay: bytes across the line both ways per
#                 transaction and relay / direct (target 1/replicas), the
#                 primary's CPU per transaction, lag p50/p99/largest.
#   bbr-vs-cubic: a backlog written with the replica's receiver stopped,
#                 fetched across a lossy line with CUBIC and with BBR:
#                 catch-up time, apply rate, line throughput, packets
#                 lost, then the lag under a steady 100 txn/s (full size:
#                 at 0, 1, 2 and 5% loss).
# Arguments are petrel-lab run's (--quick, --rounds N, --systems petrel,
# --out DIR, -v); the report is written to bench/out/lab-<date>/ unless
# --out says otherwise.
# Example: bench/fanout.sh --quick
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	export PATH=/usr/local/go/bin:$PATH
fi
mkdir -p bin bench/out
go build -o bin/petrel-lab ./cmd/petrel-lab
go build -o bin/petrel ./cmd/petrel
exec bin/petrel-lab run fan-out bbr-vs-cubic --petrel-binary bin/petrel --out bench/out "$@"
