#!/usr/bin/env bash
# Server CPU per query of issue 18's two indexed joins (docs/PERFORMANCE.md,
# "Joins"; earlier runs: docs/history/PERFORMANCE-log.md): a fresh server
# on a temporary datadir and a free port, sysbench oltp_read_only
# --tables=2 --table-size=10000 prepare, ANALYZE TABLE, then `perf stat -e task-clock -p <server>`
# around N (default 50) executions of each query by mysqlslap.
#   bench/joincpu.sh BINARY|mariadb NAME
# Prints "NAME <query> cpu_ms_per_query=X" per query; stops the server
# and removes the datadir.
set -euo pipefail
BIN=$1 NAME=$2 N=${N:-50}
D=$(mktemp -d /tmp/joincpu-XXXX)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
if [ "$BIN" = mariadb ]; then
	mariadb-install-db --no-defaults --datadir="$D/data" --auth-root-authentication-method=normal >/dev/null 2>&1
	/usr/sbin/mariadbd --no-defaults --datadir="$D/data" --port="$PORT" --bind-address=127.0.0.1 --socket="$D/s.sock" \
		--innodb-buffer-pool-size=512M --user=root >"$D/log" 2>&1 &
	PID=$! PW=""
else
	"$BIN" server --datadir "$D/data" --port "$PORT" --root-password pw >"$D/log" 2>&1 &
	PID=$! PW=pw
fi
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$D"' EXIT
cli() { mysql -h127.0.0.1 -P"$PORT" -uroot ${PW:+-p$PW} --skip-ssl "$@"; }
for _ in $(seq 150); do cli -e "SELECT 1" >/dev/null 2>&1 && break; sleep 0.2; done
cli -e "CREATE DATABASE sbtest"
sysbench oltp_read_only --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$PORT" --mysql-user=root \
	--mysql-password="$PW" --mysql-ssl=off --tables=2 --table-size=10000 prepare >/dev/null
cli sbtest -e "ANALYZE TABLE sbtest1, sbtest2" >/dev/null
slap() {
	mysqlslap -h127.0.0.1 -P"$PORT" -uroot ${PW:+-p$PW} --skip-ssl --create-schema=sbtest --query="$1" \
		--concurrency=1 --iterations=1 --number-of-queries="$2" >/dev/null
}
for q in "SELECT a.id, b.c FROM sbtest1 a JOIN sbtest2 b ON b.k = a.k WHERE a.id BETWEEN 5000 AND 5009" \
	"SELECT count(*) FROM sbtest1 a JOIN sbtest2 b ON a.id = b.id WHERE a.k BETWEEN 4990 AND 5010"; do
	slap "$q" 5 # warm
	ms=$({ perf stat -e task-clock -x, -p "$PID" -- bash -c "$(declare -f slap); PORT=$PORT PW=$PW; slap \"\$0\" $N" "$q"; } 2>&1 | grep task-clock | cut -d, -f1)
	echo "$NAME ${q:0:60} cpu_ms_per_query=$(python3 -c "print(round($ms / $N, 3))")"
done
