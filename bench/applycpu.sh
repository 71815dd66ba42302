#!/usr/bin/env bash
# Replica CPU per applied transaction (issue 16): a Petrel primary and
# replica on loopback, a sysbench oltp_write_only backlog built while the
# replica's applier is stopped, then the applier is started and the
# replica process's CPU time (utime+stime from /proc) is taken from START
# REPLICA SQL_THREAD until the replica holds the primary's gtid_executed.
# Prints one line: transactions, catch-up seconds, replica CPU seconds and
# CPU microseconds per transaction (and, SETTLE, the same 5 s later, which
# shows compaction debt left behind). With PROF=N it also takes an N-second
# CPU profile of the replica from the start of the catch-up
# (PETREL_PPROF) into $DIR/apply.pb.gz: go tool pprof -top that file.
#
# Usage: bench/applycpu.sh BIN NAME [WORKERS]
# Environment: BACKLOG [30] seconds of load, THREADS [16], TABLES [8],
#   TABLE_SIZE [10000], PORT [43611] (and PORT+1, and 6073 for pprof),
#   PROF [unset], DIR [/tmp/applycpu/NAME].
# Interleave rounds of two binaries and compare; the host's noise (other
# processes) moves single figures by 15% or more.
set -uo pipefail
BIN=$1; NAME=$2; W=${3:-1}
P1=${PORT:-43611}; P2=$((P1 + 1)); D=${DIR:-/tmp/applycpu/$NAME}
rm -rf "$D"; mkdir -p "$D"
"$BIN" server --datadir "$D/p" --port $P1 --server-id 1 --root-password petrel > "$D/p.log" 2>&1 &
PP=$!
PETREL_PPROF=127.0.0.1:6073 "$BIN" server --datadir "$D/r" --port $P2 --server-id 2 --root-password petrel > "$D/r.log" 2>&1 &
RP=$!
trap 'kill $PP $RP 2>/dev/null; wait' EXIT
M="mariadb -h127.0.0.1 -uroot -ppetrel"
for i in $(seq 60); do $M -P$P1 -e "SELECT 1" >/dev/null 2>&1 && $M -P$P2 -e "SELECT 1" > /dev/null 2>&1 && break; sleep 1; done
$M -P$P1 -e "CREATE USER repl IDENTIFIED BY 'r'; GRANT REPLICATION SLAVE ON *.* TO repl; CREATE DATABASE sbtest"
$M -P$P2 -e "SET GLOBAL replica_parallel_workers=$W; CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=$P1, SOURCE_USER='repl', SOURCE_PASSWORD='r', SOURCE_AUTO_POSITION=1; START REPLICA"
SB="sysbench --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$P1 --mysql-user=root --mysql-password=petrel --mysql-db=sbtest --tables=${TABLES:-8} --table-size=${TABLE_SIZE:-10000}"
$SB oltp_write_only prepare > /dev/null 2>&1
sleep 5
$M -P$P2 -e "STOP REPLICA SQL_THREAD"
N0=$($M -P$P2 -N -e "SELECT @@gtid_executed")
$SB oltp_write_only --threads=${THREADS:-16} --time=${BACKLOG:-30} run > /dev/null
sleep 2
G=$($M -P$P1 -N -e "SELECT @@gtid_executed")
c0=$(awk '{print $14+$15}' /proc/$RP/stat)
$M -P$P2 -e "START REPLICA SQL_THREAD"
T0=$(date +%s.%N)
[ -n "${PROF:-}" ] && (curl -s -o "$D/apply.pb.gz" "http://127.0.0.1:6073/debug/pprof/profile?seconds=$PROF" &)
caught=0
for i in $(seq 3000); do
	[ "$($M -P$P2 -N -e "SELECT GTID_SUBSET('$G', @@gtid_executed)")" = 1 ] && caught=1 && break
	sleep 0.2
done
T1=$(date +%s.%N)
c1=$(awk '{print $14+$15}' /proc/$RP/stat)
[ $caught = 1 ] || { echo "FAILED $NAME: the replica did not catch up" >&2; exit 1; }
n0=$(echo "$N0" | sed -E 's/.*-([0-9]+)$/\1/'); n1=$(echo "$G" | sed -E 's/.*-([0-9]+)$/\1/')
N=$((n1 - n0)); HZ=$(getconf CLK_TCK)
echo "RESULT $NAME workers=$W txns=$N catchup_s=$(echo "$T1 - $T0" | bc) cpu_s=$(echo "scale=2; ($c1-$c0)/$HZ" | bc) cpu_us_per_txn=$(echo "scale=1; ($c1-$c0)*1000000/$HZ/$N" | bc)"
sleep 5
c2=$(awk '{print $14+$15}' /proc/$RP/stat)
echo "SETTLE $NAME cpu_us_per_txn=$(echo "scale=1; ($c2-$c0)*1000000/$HZ/$N" | bc)"
