#!/usr/bin/env bash
# Clone rate benchmark (issue 32): a Petrel donor holding SIZE_MB of
# sysbench tables is cloned with `petrel clone` into a new datadir on the
# same host; prints the bytes, seconds and MB/s the clone reports, the
# donor's sysbench write throughput without and during a clone (when
# LOAD=1), and checks the clone starts and holds the donor's GTID set and
# row count.
#
# Environment (defaults in brackets):
#   SIZE_MB [1000]  approximate datadir size (sysbench rows of ~250 bytes)
#   TABLES [8]      sysbench tables
#   LOAD [1]        also run oltp_write_only on the donor, DURATION seconds
#                   alone and then during a clone (THREADS threads)
#   DURATION [20], THREADS [8]
#   BANDWIDTH [0]   --max-bandwidth of the clone, MiB/s (0 = unlimited)
#   COMPRESS [0]    1: --compress (zstd chunks, clone_enable_compression)
#   WORK [a temporary directory], kept with KEEP=1; a WORK kept from an
#                   earlier run keeps its donor (no new prepare; SIZE_MB and
#                   TABLES must be the same)
# Example: SIZE_MB=200 LOAD=0 bench/clone.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	export PATH=/usr/local/go/bin:$PATH
fi
SIZE_MB=${SIZE_MB:-1000} TABLES=${TABLES:-8} LOAD=${LOAD:-1} DURATION=${DURATION:-20} THREADS=${THREADS:-8}
BANDWIDTH=${BANDWIDTH:-0} COMPRESS=${COMPRESS:-0}
WORK=${WORK:-$(mktemp -d /tmp/petrel-clone-bench.XXXXXX)}
PW=bench
BIN=$WORK/petrel
go build -o "$BIN" ./cmd/petrel
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
DPORT=$(port) CPORT=$(port)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	[ "${KEEP:-0}" = 1 ] || rm -rf "$WORK"
}
trap cleanup EXIT
sql() { mariadb -h127.0.0.1 -P"$1" -uroot -p"$PW" -N -B -e "$2"; }
waitup() { for _ in $(seq 300); do sql "$1" "SELECT 1" >/dev/null 2>&1 && return 0; sleep 0.2; done; echo "server on $1 did not start" >&2; exit 1; }

"$BIN" server --datadir "$WORK/donor" --port "$DPORT" --server-id 1 --root-password "$PW" >"$WORK/donor.log" 2>&1 &
PIDS+=($!)
waitup "$DPORT"
ROWS=$((SIZE_MB * 1000000 / 250 / TABLES))
SB=(--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$DPORT" --mysql-user=root --mysql-password="$PW" --mysql-db=sbtest --tables="$TABLES" --table-size="$ROWS")
if [ -z "$(sql "$DPORT" "SHOW DATABASES LIKE 'sbtest'")" ]; then
	sql "$DPORT" "CREATE DATABASE sbtest"
	echo "preparing $TABLES tables x $ROWS rows on the donor..."
	t0=$(date +%s)
	sysbench oltp_write_only "${SB[@]}" --threads=4 prepare >/dev/null
	echo "prepared in $(($(date +%s) - t0)) s"
fi
rm -rf "$WORK/clone"
echo "donor: data $(du -sm "$WORK/donor/data" | cut -f1) MB, binlog $(du -sm "$WORK/donor/binlog" | cut -f1) MB"

tps() { awk '/transactions:/ {gsub(/[(]/,"",$3); print $3}'; }
if [ "$LOAD" = 1 ]; then
	base=$(sysbench oltp_write_only "${SB[@]}" --threads="$THREADS" --time="$DURATION" --report-interval=0 run | tps)
	echo "donor oltp_write_only alone: $base tps"
	sysbench oltp_write_only "${SB[@]}" --threads="$THREADS" --time="$DURATION" --report-interval=0 run >"$WORK/during.txt" &
	SBPID=$!
	sleep 2
fi
echo "cloning..."
CLONE_CMD=("$BIN" clone --from "127.0.0.1:$DPORT" --user root --password "$PW" --datadir "$WORK/clone" --max-bandwidth "$BANDWIDTH" --compress="$([ "$COMPRESS" = 1 ] && echo true || echo false)")
echo "command: ${CLONE_CMD[*]}"
/usr/bin/time -f "clone process: %e s wall, %U s user, %S s sys, %M KiB max RSS" "${CLONE_CMD[@]}" 2>&1 | grep -v "level=INFO"
if [ "$LOAD" = 1 ]; then
	wait "$SBPID"
	during=$(tps <"$WORK/during.txt")
	echo "donor oltp_write_only during the clone (${DURATION}s window containing it): $during tps ($(python3 -c "print(f'{100*$during/$base:.0f}')")% of alone)"
fi
echo "donor: $(grep -o 'commits_paused=[^ ]*' "$WORK/donor.log" | tail -1) while it took the snapshot"
echo "clone datadir: $(du -sm "$WORK/clone/data" | cut -f1) MB"
"$BIN" server --datadir "$WORK/clone" --port "$CPORT" --server-id 2 >"$WORK/clone.log" 2>&1 &
PIDS+=($!)
waitup "$CPORT"
for t in $(seq "$TABLES"); do
	n=$(sql "$CPORT" "SELECT COUNT(*) FROM sbtest.sbtest$t")
	[ "$LOAD" = 1 ] || [ "$n" = "$ROWS" ] || { echo "sbtest$t: $n rows on the clone, want $ROWS" >&2; exit 1; }
done
echo "clone gtid_executed: $(sql "$CPORT" "SELECT @@GLOBAL.gtid_executed")"
echo "donor gtid_executed: $(sql "$DPORT" "SELECT @@GLOBAL.gtid_executed")"
