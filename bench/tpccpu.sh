#!/usr/bin/env bash
# TPC-C server CPU per transaction, Petrel builds against each other
# (issue 29): go-tpc v1.0.7 loads WAREHOUSES warehouses once into a
# Petrel datadir; then, for ROUNDS rounds, each build in turn starts on a
# fresh copy of that datadir (an LSM-shape change needs its own LSM) and
# runs THREADS clients for WARMUP, then for MEASURE; the server's
# user+system CPU over the measured run (/proc/PID/stat fields 14 and 15)
# divided by go-tpc's transactions of every kind is its CPU per
# transaction. CPU per transaction is what the host's load skews least
# (throughput is printed too). docs/PERFORMANCE.md, "TPC-C storage CPU".
#
#   bench/tpccpu.sh NAME=BINARY [NAME=BINARY ...]
# Environment: WAREHOUSES [4], THREADS [16], WARMUP [20s], MEASURE [45s],
#   ROUNDS [4], LOADER: the binary that loads (default: the first).
# Prints one line per run and a table of the means; removes its
# datadirs on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: bench/tpccpu.sh NAME=BINARY ..." >&2; exit 2; }
WAREHOUSES=${WAREHOUSES:-4} THREADS=${THREADS:-16} WARMUP=${WARMUP:-20s} MEASURE=${MEASURE:-45s} ROUNDS=${ROUNDS:-4}
export PATH=$PATH:$(go env GOPATH)/bin
command -v go-tpc >/dev/null 2>&1 || go install github.com/pingcap/go-tpc/cmd/go-tpc@v1.0.7
declare -a NAMES BINS
for a in "$@"; do NAMES+=("${a%%=*}"); BINS+=("${a#*=}"); done
LOADER=${LOADER:-${BINS[0]}}
D=$(mktemp -d /tmp/tpccpu-XXXX)
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null; rm -rf "$D"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PORT=$(freeport)
start() { # binary datadir
	"$1" server --datadir "$2" --port "$PORT" --server-id 1 --root-password pw >"$D/server.log" 2>&1 &
	PID=$!
	for _ in $(seq 300); do
		mariadb --no-defaults -h127.0.0.1 -P"$PORT" -uroot -ppw --skip-ssl -e "SELECT 1" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	echo "tpccpu.sh: the server did not start: $D/server.log" >&2
	exit 1
}
stop() { kill "$PID"; wait "$PID" 2>/dev/null || true; PID=; }
tpc() { go-tpc -H 127.0.0.1 -P "$PORT" -U root -p pw tpcc -D tpcc --warehouses "$WAREHOUSES" "$@"; }
ticks() { awk '{print $14 + $15}' "/proc/$PID/stat"; }

start "$LOADER" "$D/base"
mariadb --no-defaults -h127.0.0.1 -P"$PORT" -uroot -ppw --skip-ssl -e "CREATE DATABASE tpcc"
tpc prepare -T 4 --no-check >"$D/prepare.log" 2>&1
stop
hz=$(getconf CLK_TCK)
declare -A MS TPM
for r in $(seq "$ROUNDS"); do
	for i in "${!NAMES[@]}"; do
		n=${NAMES[$i]}
		rm -rf "$D/run" && cp -a "$D/base" "$D/run"
		start "${BINS[$i]}" "$D/run"
		tpc run -T "$THREADS" --time "$WARMUP" >"$D/warmup.log" 2>&1 || true
		c0=$(ticks)
		tpc run -T "$THREADS" --time "$MEASURE" >"$D/run.log" 2>&1 || true
		c1=$(ticks)
		stop
		txns=$(sed -n '/Finished/,$p' "$D/run.log" | grep -E '^\[Summary\] [A-Z_]+ ' | grep -v _ERR | grep -o 'Count: [0-9]*' | awk '{s += $2} END {print s + 0}')
		tpmc=$(grep -o 'tpmC: [0-9.]*' "$D/run.log" | tail -1 | cut -d' ' -f2)
		[ "$txns" -gt 0 ] || { echo "tpccpu.sh: $n: no transactions (log: $D/run.log)" >&2; cat "$D/run.log" >&2; exit 1; }
		ms=$(python3 -c "print(round(($c1 - $c0) / $hz * 1000 / $txns, 3))")
		MS[$n]="${MS[$n]:-} $ms" TPM[$n]="${TPM[$n]:-} ${tpmc%.*}"
		echo "round $r $n ms/txn=$ms tpmC=${tpmc%.*} txns=$txns load=$(cut -d' ' -f1 /proc/loadavg)"
	done
done
mean() { tr ' ' '\n' | grep . | awk '{s += $1; n++} END {printf "%.3f", s / n}'; }
echo
echo "| build | ms/txn per round | mean ms/txn | tpmC per round | mean tpmC |"
echo "|---|---|---:|---|---:|"
for n in "${NAMES[@]}"; do
	echo "| $n |${MS[$n]} | $(echo "${MS[$n]}" | mean) |${TPM[$n]} | $(echo "${TPM[$n]}" | mean) |"
done
