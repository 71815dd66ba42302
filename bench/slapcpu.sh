#!/usr/bin/env bash
# Server and client CPU per iteration of the seed's mysqlslap
# --auto-generate-sql load (docs/PERFORMANCE.md, issue 18): a fresh
# server on a temporary datadir and a free port (Petrel, or MariaDB 10.11
# with the benchmark's durable flags), one warm-up run, then ITERATIONS
# iterations timed by mysqlslap, the server's user+system time from
# /proc/PID/stat and mysqlslap's from the shell's `times`.
#   bench/slapcpu.sh BINARY|mariadb NAME [CONCURRENCY]
# Environment: ITERATIONS [3], LOAD [mixed] (mysqlslap's
# --auto-generate-sql-load-type: mixed, read, write, ...), 100 queries
# per client. Prints one line: NAME load=... c=... avg_s=<mysqlslap's
# average seconds> server_cpu_s_per_iter=... client_cpu_s_per_iter=...
# Stops the server and removes the datadir.
set -euo pipefail
BIN=$1 NAME=$2 C=${3:-50} IT=${ITERATIONS:-3} LOAD=${LOAD:-mixed}
D=$(mktemp -d /tmp/slapcpu-XXXX)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
if [ "$BIN" = mariadb ]; then
	mariadb-install-db --no-defaults --datadir="$D/data" --auth-root-authentication-method=normal >/dev/null 2>&1
	/usr/sbin/mariadbd --no-defaults --datadir="$D/data" --port="$PORT" --bind-address=127.0.0.1 --socket="$D/s.sock" \
		--log-bin=mysql-bin --binlog-format=ROW --sync-binlog=1 --innodb-flush-log-at-trx-commit=1 \
		--innodb-buffer-pool-size=512M --max-connections=1000 --user=root >"$D/log" 2>&1 &
	PID=$! PW=""
else
	"$BIN" server --datadir "$D/data" --port "$PORT" --server-id 1 --root-password pw >"$D/log" 2>&1 &
	PID=$! PW=pw
fi
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$D"' EXIT
for _ in $(seq 150); do
	mariadb --no-defaults -h127.0.0.1 -P"$PORT" -uroot ${PW:+-p$PW} --skip-ssl -e "SELECT 1" >/dev/null 2>&1 && break
	sleep 0.2
done
slap() {
	mariadb-slap --no-defaults --protocol=TCP -h127.0.0.1 -P"$PORT" -uroot ${PW:+-p$PW} --skip-ssl --auto-generate-sql \
		--auto-generate-sql-load-type="$LOAD" --concurrency="$C" --number-of-queries=$((100 * C)) --iterations="$1"
}
ticks() { awk '{print $14 + $15}' "/proc/$PID/stat"; }
slap 1 >/dev/null
hz=$(getconf CLK_TCK)
t0=$(ticks)
# The subshell's children's times (the second line of `times`) are
# mysqlslap's: "XmY.YYYs XmY.YYYs".
out=$( (slap "$IT"; times) 2>&1)
t1=$(ticks)
avg=$(echo "$out" | awk '/Average number of seconds/ {print $9}')
cc=$(echo "$out" | tail -1 | awk '{ for (i = 1; i <= 2; i++) { split($i, a, "m"); sub("s", "", a[2]); t += a[1] * 60 + a[2] } print t }')
echo "$NAME load=$LOAD c=$C avg_s=$avg server_cpu_s_per_iter=$(python3 -c "print(round(($t1 - $t0) / $hz / $IT, 3))") client_cpu_s_per_iter=$(python3 -c "print(round(($cc) / $IT, 3))")"
