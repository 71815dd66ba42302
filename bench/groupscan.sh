#!/usr/bin/env bash
# A GROUP BY over a primary key's first column, shaped like TPC-H Q18's
# subquery: a fresh petrel (BINARY) on a temporary datadir and a free
# port, a 1M-row table d.li (PRIMARY KEY (o, l), 500,000 groups), then
# the query once to warm and three times measured; prints the server's
# CPU and wall seconds per query and its peak RSS.
#   bench/groupscan.sh BINARY
set -euo pipefail
BIN=$1; D=$(mktemp -d /tmp/groupscan-XXXX)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
$BIN server --datadir $D/data --port $PORT --server-id 1 --root-password pw > $D/log 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$D"' EXIT
cli() { mariadb -h127.0.0.1 -P$PORT -uroot -ppw --skip-ssl "$@"; }
for _ in $(seq 100); do cli -e "SELECT 1" >/dev/null 2>&1 && break; sleep 0.2; done
cli -e "CREATE DATABASE d; CREATE TABLE d.seed (i INT PRIMARY KEY); INSERT INTO d.seed WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 999) SELECT i FROM s;
CREATE TABLE d.li (o INT, l INT, q DECIMAL(15,2), PRIMARY KEY (o, l));
INSERT INTO d.li SELECT a.i * 500 + b.i DIV 2 + 1, b.i % 2 + 1, (a.i * 7 + b.i) % 50 + 1 FROM d.seed a, d.seed b;
ANALYZE TABLE d.li" > /dev/null
sleep 2
Q="SELECT COUNT(*) FROM (SELECT o FROM d.li GROUP BY o HAVING SUM(q) > 60) x"
cli -N -e "$Q"
C0=$(awk '{print $14+$15}' /proc/$PID/stat); T0=$(date +%s.%N)
for i in 1 2 3; do cli -N -e "$Q" > /dev/null; done
C1=$(awk '{print $14+$15}' /proc/$PID/stat); T1=$(date +%s.%N)
echo "$(basename $BIN) cpu_per_query_s=$(python3 -c "print(round(($C1-$C0)/100/3, 2))") wall_per_query_s=$(python3 -c "print(round(($T1-$T0)/3, 2))") rss_mib=$(awk '/^VmHWM/{print int($2/1024)}' /proc/$PID/status)"
