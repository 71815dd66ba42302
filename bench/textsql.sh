#!/usr/bin/env bash
# sysbench with statements sent as text with their values in them
# (--db-ps-mode=disable: what applications that interpolate client-side
# send) and prepared, Petrel beside MariaDB 10.11 with equal durability
# (binlog, sync_binlog=1, flush at commit), in interleaved rounds
# (docs/PERFORMANCE.md "Text statements with literals", issue 29).
#   bench/textsql.sh PETREL_BINARY [OTHER_PETREL_BINARY]
# Environment: ROUNDS [3], SECONDS_PER [8], THREADS [4], TESTS
# [oltp_point_select oltp_read_write], ROWS [10000]. Prints one line per
# round, system, test and mode (queries per second), then the medians
# and each Petrel's ratio to MariaDB. Starts every server on a temporary
# datadir and a free port and stops them on exit.
set -euo pipefail
A=$1 B=${2:-} ROUNDS=${ROUNDS:-3} SECS=${SECONDS_PER:-8} THREADS=${THREADS:-4} ROWS=${ROWS:-10000}
TESTS=${TESTS:-"oltp_point_select oltp_read_write"}
D=$(mktemp -d /tmp/textsql-XXXX)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill $p 2>/dev/null; done; wait 2>/dev/null; rm -rf "$D"' EXIT
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
declare -A PORT PW
start_petrel() { # name binary
	local p; p=$(freeport)
	"$2" server --datadir "$D/$1" --port "$p" --server-id 1 --root-password pw >"$D/$1.log" 2>&1 &
	PIDS+=($!) PORT[$1]=$p PW[$1]=pw
}
start_mariadb() {
	local p; p=$(freeport)
	mariadb-install-db --no-defaults --datadir="$D/mariadb" --auth-root-authentication-method=normal >/dev/null 2>&1
	/usr/sbin/mariadbd --no-defaults --datadir="$D/mariadb" --port="$p" --bind-address=127.0.0.1 --socket="$D/m.sock" \
		--log-bin=mysql-bin --binlog-format=ROW --sync-binlog=1 --innodb-flush-log-at-trx-commit=1 \
		--innodb-buffer-pool-size=512M --max-connections=1000 --user=root >"$D/mariadb.log" 2>&1 &
	PIDS+=($!) PORT[mariadb]=$p PW[mariadb]=""
}
SYSTEMS="mariadb petrel"
start_mariadb
start_petrel petrel "$A"
if [ -n "$B" ]; then start_petrel petrel_b "$B"; SYSTEMS="$SYSTEMS petrel_b"; fi
sb() { # system test mode args...
	local s=$1 t=$2 m=$3; shift 3
	sysbench "$t" --mysql-host=127.0.0.1 --mysql-port="${PORT[$s]}" --mysql-user=root ${PW[$s]:+--mysql-password=${PW[$s]}} \
		--mysql-db=sbtest --tables=1 --table-size="$ROWS" --db-ps-mode="$m" "$@"
}
for s in $SYSTEMS; do
	for _ in $(seq 150); do
		mariadb --no-defaults -h127.0.0.1 -P"${PORT[$s]}" -uroot ${PW[$s]:+-p${PW[$s]}} --skip-ssl -e "CREATE DATABASE IF NOT EXISTS sbtest" 2>/dev/null && break
		sleep 0.2
	done
	sb "$s" oltp_common disable prepare >/dev/null
done
OUT=$D/results
for r in $(seq "$ROUNDS"); do
	for t in $TESTS; do
		for m in disable auto; do
			for s in $SYSTEMS; do
				q=$(sb "$s" "$t" "$m" --threads="$THREADS" --time="$SECS" run | awk '/queries:/ {gsub("[(]", "", $3); print $3}')
				mode=$([ "$m" = disable ] && echo text || echo prepared)
				echo "round $r $s $t $mode qps=$q"
				echo "$s $t $mode $q" >>"$OUT"
			done
		done
	done
done
python3 - "$OUT" <<'PY'
import sys, statistics, collections
v = collections.defaultdict(list)
for line in open(sys.argv[1]):
    s, t, m, q = line.split()
    v[(s, t, m)].append(float(q))
for (s, t, m), qs in sorted(v.items()):
    if s == "mariadb":
        continue
    med, base = statistics.median(qs), statistics.median(v[("mariadb", t, m)])
    print(f"{s} {t} {m}: median {med:.0f} qps, MariaDB {base:.0f}, ratio {med / base:.2f}")
PY
