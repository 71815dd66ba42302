#!/usr/bin/env bash
# Issue 29's memory benchmarks: the server's RSS (VmRSS of /proc/PID/status,
# sampled every 0.5 s) around three loads on one fresh petrel (temporary
# datadir, free port, binlog on):
#   insert  a ROWS-row INSERT ... SELECT (a cross join of a 1000-row seed
#           with itself, into a sysbench-shaped table sbtest.sbtest1)
#   update  UPDATE of every row in one transaction (BEGIN; UPDATE; COMMIT)
#   burst   sysbench oltp_point_select on CONNS connections for DURATION s
# each followed by IDLE seconds of nothing. Per load it prints RSS at the
# start, the peak during it, and at the end of the idle time, with the
# block cache's bytes (Petrel_block_cache_bytes) at the peak's end and at
# the idle's end, as a markdown table.
#
# Environment (defaults in brackets):
#   ROWS [1000000] (a multiple of 1000), CONNS [2000], DURATION [60],
#   IDLE [60], CACHE [256M] innodb_buffer_pool_size, MEMORY_LIMIT [4G]
#   --memory-limit, PETREL_BINARY (default: build ./cmd/petrel),
#   PETREL_ARGS extra server flags, PHASES ["insert update burst"] the
#   loads to run (insert always runs: it fills the table).
# Example: ROWS=200000 CONNS=500 DURATION=20 IDLE=30 bench/memory.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-1000000} CONNS=${CONNS:-2000} DURATION=${DURATION:-60} IDLE=${IDLE:-60}
CACHE=${CACHE:-256M} MEMORY_LIMIT=${MEMORY_LIMIT:-4G} PHASES=${PHASES:-insert update burst}
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	export PATH=/usr/local/go/bin:$PATH
fi
command -v sysbench >/dev/null 2>&1 || bash scripts/deps.sh
BIN=${PETREL_BINARY:-}
if [ -z "$BIN" ]; then
	mkdir -p bin
	go build -o bin/petrel-memory ./cmd/petrel
	BIN=bin/petrel-memory
fi
D=$(mktemp -d /tmp/petrel-memory-XXXX)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$D/my.cnf" <<CNF
[petrel]
innodb_buffer_pool_size = $CACHE
max_connections = $((CONNS + 50))
CNF
# shellcheck disable=SC2086
"$BIN" server --datadir "$D/data" --port "$PORT" --root-password pw --config "$D/my.cnf" \
	--memory-limit "$MEMORY_LIMIT" ${PETREL_ARGS:-} >"$D/log" 2>&1 &
PID=$!
SAMPLER=
cleanup() {
	[ -n "$SAMPLER" ] && kill "$SAMPLER" 2>/dev/null
	kill "$PID" 2>/dev/null
	wait "$PID" 2>/dev/null || true
	rm -rf "$D"
}
trap cleanup EXIT
cli() { mariadb -h127.0.0.1 -P"$PORT" -uroot -ppw --skip-ssl "$@"; }
for _ in $(seq 300); do cli -e "SELECT 1" >/dev/null 2>&1 && break; sleep 0.2; done
cli -e "SELECT 1" >/dev/null

rss() { awk '/^VmRSS:/ {print int($2 / 1024)}' "/proc/$PID/status"; }
cache() { cli -N -e "SHOW GLOBAL STATUS LIKE 'Petrel_block_cache_bytes'" | awk '{print int($2 / 1048576)}'; }
# The sampler appends "phase rss_mib" every 0.5 s; the phase is the
# content of $D/phase.
echo setup >"$D/phase"
(while kill -0 "$PID" 2>/dev/null; do echo "$(cat "$D/phase") $(rss)" >>"$D/rss"; sleep 0.5; done) &
SAMPLER=$!

cli -e "CREATE DATABASE sbtest"
cli sbtest -e "CREATE TABLE seed (i INT PRIMARY KEY);
	INSERT INTO seed WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 999) SELECT i FROM s;
	CREATE TABLE sbtest1 (id INT NOT NULL PRIMARY KEY, k INT NOT NULL DEFAULT 0,
		c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '', KEY k_1 (k))"

ROWS_TABLE="| load | seconds | RSS start MiB | RSS peak MiB | block cache at end MiB | RSS after ${IDLE} s idle MiB | block cache after idle MiB |"
ROWS_TABLE+=$'\n''|---|---|---|---|---|---|---|'
run() { # name, command...
	local name=$1 start peak t0 t1 endcache after aftercache
	shift
	start=$(rss)
	echo "$name" >"$D/phase"
	t0=$(date +%s.%N)
	"$@"
	t1=$(date +%s.%N)
	endcache=$(cache)
	echo "$name-idle" >"$D/phase"
	sleep "$IDLE"
	after=$(rss) aftercache=$(cache)
	peak=$(awk -v p="$name" '$1 == p && $2 > m {m = $2} END {print m + 0}' "$D/rss")
	ROWS_TABLE+=$'\n'"| $name | $(python3 -c "print(round($t1 - $t0, 1))") | $start | $peak | $endcache | $after | $aftercache |"
	echo "$name: start ${start} MiB, peak ${peak} MiB, after ${IDLE} s ${after} MiB (block cache ${endcache} -> ${aftercache} MiB)" >&2
}
SEEDS=$((ROWS / 1000))
run insert cli sbtest -e "INSERT INTO sbtest1 SELECT a.i * 1000 + b.i + 1, (a.i * 7919 + b.i) % $ROWS,
	REPEAT(CHAR(97 + b.i % 26), 120), REPEAT('p', 60) FROM seed a, seed b WHERE a.i < $SEEDS"
[ "$(cli -N sbtest -e "SELECT COUNT(*) FROM sbtest1")" = "$ROWS" ] || { echo "insert: wrong row count" >&2; exit 1; }
want() { [[ " $PHASES " == *" $1 "* ]]; }
want update && run update cli sbtest -e "BEGIN; UPDATE sbtest1 SET k = k + 1; COMMIT"
want burst && run burst sysbench oltp_point_select --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$PORT" \
	--mysql-user=root --mysql-password=pw --mysql-ssl=off --mysql-db=sbtest --tables=1 --table-size="$ROWS" \
	--threads="$CONNS" --time="$DURATION" --report-interval=0 run >"$D/sysbench.out"
grep -E "queries:|transactions:" "$D/sysbench.out" >&2 || true
echo
echo "petrel --memory-limit $MEMORY_LIMIT, innodb_buffer_pool_size $CACHE, $ROWS rows, $CONNS connections for $DURATION s"
echo "$ROWS_TABLE"
