#!/usr/bin/env bash
# bench/proxy.sh: `petrel proxy`'s overhead. A `petrel cluster` of a
# primary and two replicas, and `petrel proxy` in front of them (one per
# --pack-sessions value in PACK: 0 spreads sessions round-robin over the
# replicas, N packs N sessions a replica); sysbench oltp_point_select
# direct to one replica, then through each proxy, then through socat (a
# byte relay to that replica, written in C: the floor of any TCP hop on
# this host; skipped without socat), in interleaved rounds so that a
# noisy neighbour hits all alike. Each figure's ratio is to the direct
# run just before it. Besides q/s, the CPU time each process spent per
# query (utime+stime from /proc/PID/stat over the run, divided by the
# queries): the proxy's cost per query against a replica's, which is
# what the throughput ratio becomes when the proxy and the replicas do
# not share cores.
#
#   BIN=/tmp/petrel THREADS="4 64" ROUNDS=3 TIME=10 PACK="0 8" bench/proxy.sh
set -euo pipefail

BIN=${BIN:-petrel}
BASE=${BASE:-23400}
PPORT=$((BASE + 20))
THREADS=${THREADS:-"4 64"}
ROUNDS=${ROUNDS:-3}
TIME=${TIME:-10}
PS_MODE=${PS_MODE:-auto}
PACK=${PACK:-"0 8"}
PW=pw
DIR=$(mktemp -d /tmp/proxybench.XXXXXX)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	kill "$CPID" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$DIR"
}
trap cleanup EXIT

"$BIN" cluster --datadir "$DIR" --base-port "$BASE" --replicas 2 \
	--root-password "$PW" --log-level warn >"$DIR/cluster.out" 2>&1 &
CPID=$!

sql() { mariadb -h127.0.0.1 -P"$1" -uroot -p"$PW" --skip-ssl -N -B -e "$2"; }
for _ in $(seq 1 120); do
	sql $((BASE + 2)) "SELECT 1" >/dev/null 2>&1 && break
	sleep 0.5
done

# proxies: port -> label
declare -A LABEL
port=$PPORT
for n in $PACK; do
	"$BIN" proxy --port "$port" --admin-port $((port + 1)) --pack-sessions "$n" --discover off \
		--primary 127.0.0.1:"$BASE" --replicas 127.0.0.1:$((BASE + 1)),127.0.0.1:$((BASE + 2)) \
		--monitor-user root --monitor-password "$PW" --log-level warn >"$DIR/proxy.$port.out" 2>&1 &
	PIDS+=($!)
	LABEL[$port]="proxy_pack$n"
	[ "$n" = 0 ] && LABEL[$port]="proxy_spread"
	port=$((port + 2))
done
RPORT=$((BASE + 30))
if command -v socat >/dev/null; then
	socat TCP-LISTEN:"$RPORT",fork,reuseaddr,nodelay,backlog=256 TCP:127.0.0.1:$((BASE + 1)),nodelay &
	PIDS+=($!)
	LABEL[$RPORT]="socat_relay"
fi
for p in "${!LABEL[@]}"; do
	for _ in $(seq 1 120); do
		sql "$p" "SELECT 1" >/dev/null 2>&1 && break
		sleep 0.5
	done
done

sql "$BASE" "CREATE DATABASE IF NOT EXISTS sbtest"
SB=(--mysql-host=127.0.0.1 --mysql-user=root --mysql-password="$PW" --mysql-db=sbtest --mysql-ssl=off
	--tables=1 --table-size=10000 --db-ps-mode="$PS_MODE")
sysbench oltp_point_select "${SB[@]}" --mysql-port="$BASE" prepare >/dev/null
for _ in $(seq 1 120); do
	n1=$(sql $((BASE + 1)) "SELECT COUNT(*) FROM sbtest.sbtest1" 2>/dev/null || echo 0)
	n2=$(sql $((BASE + 2)) "SELECT COUNT(*) FROM sbtest.sbtest1" 2>/dev/null || echo 0)
	[ "$n1" = 10000 ] && [ "$n2" = 10000 ] && break
	sleep 0.5
done

pidof_port() { ss -ltnpH "sport = :$1" | sed -n 's/.*pid=\([0-9]*\).*/\1/p' | head -1; }
R1_PID=$(pidof_port $((BASE + 1)))
R2_PID=$(pidof_port $((BASE + 2)))
TCK=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# run PORT THREADS: prints q/s, queries
run() {
	sysbench oltp_point_select "${SB[@]}" --mysql-port="$1" --threads="$2" --time="$TIME" run |
		awk '/queries:/ {q=$2; gsub(/[(]/, "", $3); qps=$3} END {print qps, q}'
}

echo "threads round via direct_qps qps ratio proxy_cpu_us/q replicas_cpu_us/q direct_replica_cpu_us/q"
for round in $(seq 1 "$ROUNDS"); do
	for t in $THREADS; do
		for p in $(printf '%s\n' "${!LABEL[@]}" | sort -n); do
			c0=$(cpu "$R1_PID")
			read -r dq dn < <(run $((BASE + 1)) "$t")
			c1=$(cpu "$R1_PID")
			# A socat relay forks a process per connection: its CPU is
			# not counted (0).
			pp=$(pidof_port "$p")
			[ "$p" = "$RPORT" ] && pp=
			p0=0; [ -n "$pp" ] && p0=$(cpu "$pp")
			a0=$(($(cpu "$R1_PID") + $(cpu "$R2_PID")))
			read -r pq pn < <(run "$p" "$t")
			p1=0; [ -n "$pp" ] && p1=$(cpu "$pp")
			a1=$(($(cpu "$R1_PID") + $(cpu "$R2_PID")))
			awk -v t="$t" -v r="$round" -v via="${LABEL[$p]}" -v dq="$dq" -v pq="$pq" -v dn="$dn" -v pn="$pn" -v tck="$TCK" \
				-v dc=$((c1 - c0)) -v pc=$((p1 - p0)) -v ac=$((a1 - a0)) 'BEGIN {
				if (dn == 0 || pn == 0) { printf "%s %s %s failed (sysbench ran no query)\n", t, r, via; exit }
				printf "%s %s %s %.0f %.0f %.2f %.1f %.1f %.1f\n", t, r, via, dq, pq, pq / dq,
					pc / tck * 1e6 / pn, ac / tck * 1e6 / pn, dc / tck * 1e6 / dn }'
		done
	done
done
