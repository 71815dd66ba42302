#!/usr/bin/env bash
# Issue 29 item 3's bulk statements, timed with the server's CPU: a fresh
# server on a temporary datadir and a free port (Petrel, or MariaDB 10.11
# with the benchmark's durable flags: binlog on, sync_binlog=1,
# innodb_flush_log_at_trx_commit=1), the table and seed of
# bench/memory.sh, then
#   insert  INSERT INTO sbtest1 SELECT ... FROM seed a, seed b (ROWS rows)
#   update  BEGIN; UPDATE sbtest1 SET k = k + 1; COMMIT
#   delete  BEGIN; DELETE FROM sbtest1 WHERE id % 2 = 0; COMMIT (if in PHASES)
# each timed by the client (wall seconds) and by the server's user+system
# time from /proc/PID/stat fields 14 and 15.
#   bench/bulk.sh BINARY|mariadb NAME
# Environment: ROWS [300000] (a multiple of 1000), PHASES ["insert update"]
# (insert always runs), PROFILE_DIR: for Petrel, a CPU profile of each
# statement is written there as NAME-PHASE.pprof (PETREL_PPROF on a free
# port; PROFILE_SECONDS [6] from just before the statement). Prints one line: NAME insert_s=... insert_cpu_s=... update_s=...
# Stops the server and removes the datadir. Alternate builds (A B A B)
# on this shared host: the host's load moves the figures more than noise.
set -euo pipefail
BIN=$1 NAME=$2 ROWS=${ROWS:-300000} PHASES=${PHASES:-insert update}
D=$(mktemp -d /tmp/bulk-XXXX)
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PORT=$(freeport)
PPROF=
if [ "$BIN" = mariadb ]; then
	mariadb-install-db --no-defaults --datadir="$D/data" --auth-root-authentication-method=normal >/dev/null 2>&1
	/usr/sbin/mariadbd --no-defaults --datadir="$D/data" --port="$PORT" --bind-address=127.0.0.1 --socket="$D/s.sock" \
		--server-id=1 --log-bin=mysql-bin --binlog-format=ROW --sync-binlog=1 --innodb-flush-log-at-trx-commit=1 \
		--innodb-buffer-pool-size=256M --max-connections=1000 --user=root >"$D/log" 2>&1 &
	PID=$! PW=""
else
	if [ -n "${PROFILE_DIR:-}" ]; then
		PPROF=127.0.0.1:$(freeport)
		mkdir -p "$PROFILE_DIR"
	fi
	PETREL_PPROF=$PPROF "$BIN" server --datadir "$D/data" --port "$PORT" --server-id 1 --root-password pw >"$D/log" 2>&1 &
	PID=$! PW=pw
fi
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$D"' EXIT
cli() { mariadb --no-defaults -h127.0.0.1 -P"$PORT" -uroot ${PW:+-p$PW} --skip-ssl "$@"; }
for _ in $(seq 300); do cli -e "SELECT 1" >/dev/null 2>&1 && break; sleep 0.2; done
cli -e "SELECT 1" >/dev/null
cli -e "CREATE DATABASE sbtest"
cli sbtest -e "CREATE TABLE seed (i INT PRIMARY KEY);
	INSERT INTO seed WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 999) SELECT i FROM s;
	CREATE TABLE sbtest1 (id INT NOT NULL PRIMARY KEY, k INT NOT NULL DEFAULT 0,
		c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '', KEY k_1 (k))"
hz=$(getconf CLK_TCK)
ticks() { awk '{print $14 + $15}' "/proc/$PID/stat"; }
OUT="$NAME"
run() { # phase, SQL
	local phase=$1 sql=$2 t0 t1 c0 c1 prof=
	if [ -n "$PPROF" ]; then
		curl -s -o "$PROFILE_DIR/$NAME-$phase.pprof" "http://$PPROF/debug/pprof/profile?seconds=${PROFILE_SECONDS:-6}" &
		prof=$!
		sleep 0.5
	fi
	c0=$(ticks) t0=$(date +%s.%N)
	cli sbtest -e "$sql"
	t1=$(date +%s.%N) c1=$(ticks)
	if [ -n "$prof" ]; then
		wait "$prof" 2>/dev/null || true
	fi
	OUT+=" ${phase}_s=$(python3 -c "print(round($t1 - $t0, 2))") ${phase}_cpu_s=$(python3 -c "print(round(($c1 - $c0) / $hz, 2))")"
}
SEEDS=$((ROWS / 1000))
run insert "INSERT INTO sbtest1 SELECT a.i * 1000 + b.i + 1, (a.i * 7919 + b.i) % $ROWS,
	REPEAT(CHAR(97 + b.i % 26), 120), REPEAT('p', 60) FROM seed a, seed b WHERE a.i < $SEEDS"
[ "$(cli -N sbtest -e "SELECT COUNT(*) FROM sbtest1")" = "$ROWS" ] || { echo "bulk.sh: insert: wrong row count" >&2; exit 1; }
want() { [[ " $PHASES " == *" $1 "* ]]; }
want update && run update "BEGIN; UPDATE sbtest1 SET k = k + 1; COMMIT"
want update && { [ "$(cli -N sbtest -e "SELECT SUM(k) FROM sbtest1")" = "$(python3 -c "
n = $ROWS
print(sum((a * 7919 + b) % n for a in range(n // 1000) for b in range(1000)) + n)")" ] || { echo "bulk.sh: update: wrong sum" >&2; exit 1; }; }
want delete && run delete "BEGIN; DELETE FROM sbtest1 WHERE id % 2 = 0; COMMIT"
echo "$OUT"
