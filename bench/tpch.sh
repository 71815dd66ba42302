#!/usr/bin/env bash
# TPC-H's 22 queries (go-tpc v1.0.7's text) on Petrel beside MariaDB 10.11,
# on the same rows, with the answers compared: the correctness and
# per-query time check that bench/tpc.sh's SF1 run (22 min of load into
# Petrel) is too slow for. go-tpc loads SF1 into MariaDB (about 2 min,
# no binlog), a 1/SUBSET slice is cut from it (part, partsupp, customer
# and their orders and lines; supplier, nation and region whole) and copied
# into Petrel with mariadb-dump; both are ANALYZEd. Each query then runs
# on each server in turn through the mariadb CLI (Q15's CREATE VIEW,
# SELECT, DROP VIEW as three statements: go-tpc itself sends them as one
# multi-statement COM_QUERY, which is a separate check), bounded by
# QTIMEOUT (a query still running is killed with KILL QUERY).
# Rows are compared in order: strings exactly, numbers within 1% or 0.01
# (TPC-H's rounding); rows that match only once sorted are "ok (order)".
#
#   bench/tpch.sh
# Environment (defaults in brackets):
#   SUBSET     [10]   keep keys up to 1/SUBSET of SF1 (10: about SF 0.1)
#   QUERIES    ["q1 ... q22"]
#   QTIMEOUT   [120]  seconds per query per server
#   PETREL_BINARY  use this petrel instead of building ./cmd/petrel
#   KEEP       [0]    1: leave both servers up at the end (ports printed)
#   ATTACH     [""]   "MARIADB_PORT PETREL_PORT": run the queries on a KEEP=1
#                     run's servers (loaded) instead of starting and loading
#                     (e.g. after restarting Petrel on its datadir with
#                     another binary)
#   OUT_DIR    [bench/out]
# Prints a markdown table (status, seconds on each, ratio, rows) and keeps
# every answer in OUT_DIR/tpch-<date>/ (qN.petrel, qN.mariadb).
# Stops both servers and removes their datadirs on exit, including on ^C.
set -euo pipefail
cd "$(dirname "$0")/.."
SUBSET=${SUBSET:-10} QTIMEOUT=${QTIMEOUT:-120}
QUERIES=${QUERIES:-"q1 q2 q3 q4 q5 q6 q7 q8 q9 q10 q11 q12 q13 q14 q15 q16 q17 q18 q19 q20 q21 q22"}
OUT_DIR=${OUT_DIR:-bench/out}
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	export PATH=/usr/local/go/bin:$PATH
fi
export PATH=$PATH:$(go env GOPATH)/bin
command -v go-tpc >/dev/null 2>&1 || go install github.com/pingcap/go-tpc/cmd/go-tpc@v1.0.7
QFILE=$(go env GOMODCACHE)/github.com/pingcap/go-tpc@v1.0.7/tpch/query.go
command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || bash scripts/deps.sh
PETREL=${PETREL_BINARY:-}
if [ -z "$PETREL" ]; then
	mkdir -p bin
	go build -o bin/petrel ./cmd/petrel
	PETREL=$PWD/bin/petrel
fi
STAMP=$(date -u +%Y%m%d-%H%M)
mkdir -p "$OUT_DIR/tpch-$STAMP"
LOGS=$(cd "$OUT_DIR/tpch-$STAMP" && pwd)
D=$(mktemp -d /tmp/tpch-XXXX)
PIDS=""
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null || true; done
	for p in $PIDS; do wait "$p" 2>/dev/null || true; done
	rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
declare -A PORT PW
cli() { # name args...
	local n=$1
	shift
	mariadb --no-defaults -h127.0.0.1 -P"${PORT[$n]}" -uroot ${PW[$n]:+-p${PW[$n]}} --skip-ssl "$@"
}
start() { # name
	local n=$1
	PORT[$n]=$(freeport)
	mkdir -p "$D/$n"
	if [ "$n" = mariadb ]; then
		mariadb-install-db --no-defaults --datadir="$D/$n/data" --auth-root-authentication-method=normal >/dev/null 2>&1
		/usr/sbin/mariadbd --no-defaults --datadir="$D/$n/data" --port="${PORT[$n]}" --bind-address=127.0.0.1 \
			--socket="$D/$n/s.sock" --skip-name-resolve --skip-log-bin --innodb-flush-log-at-trx-commit=2 \
			--innodb-buffer-pool-size=1G --user=root >"$LOGS/$n.log" 2>&1 &
		PW[$n]=""
	else
		"$PETREL" server --datadir "$D/$n/data" --port "${PORT[$n]}" --server-id 1 --root-password pw \
			--skip-log-bin >"$LOGS/$n.log" 2>&1 &
		PW[$n]=pw
	fi
	PIDS="$PIDS $!"
	for _ in $(seq 300); do
		cli "$n" -e "SELECT 1" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	echo "tpch.sh: $n did not start; log in $LOGS/$n.log" >&2
	exit 1
}
killq() { # name: kill every statement still running but our own
	local ids
	ids=$(cli "$1" -N -e "SELECT id FROM information_schema.processlist WHERE command = 'Query' AND id <> CONNECTION_ID()" 2>/dev/null || true)
	for id in $ids; do cli "$1" -e "KILL QUERY $id" >/dev/null 2>&1 || true; done
}
now() { date +%s.%N; }

if [ -n "${ATTACH:-}" ]; then
	read -r PORT[mariadb] PORT[petrel] <<<"$ATTACH"
	PW[mariadb]="" PW[petrel]=pw
	rows=$(cli petrel -N tpch -e "SELECT COUNT(*) FROM lineitem")
else
	start mariadb
	start petrel
	echo "servers: mariadb=127.0.0.1:${PORT[mariadb]} petrel=127.0.0.1:${PORT[petrel]}" >&2

	# SF1 into MariaDB, the slice beside it, the slice into Petrel.
	cli mariadb -e "CREATE DATABASE tpch1"
	t0=$(now)
	go-tpc -H 127.0.0.1 -P "${PORT[mariadb]}" -U root tpch -D tpch1 --sf 1 prepare -T 2 >"$LOGS/mariadb-prepare.log" 2>&1
	K=$SUBSET
	cli mariadb -e "CREATE DATABASE tpch; USE tpch;
		CREATE TABLE nation LIKE tpch1.nation; INSERT INTO nation SELECT * FROM tpch1.nation;
		CREATE TABLE region LIKE tpch1.region; INSERT INTO region SELECT * FROM tpch1.region;
		CREATE TABLE supplier LIKE tpch1.supplier; INSERT INTO supplier SELECT * FROM tpch1.supplier;
		CREATE TABLE part LIKE tpch1.part; INSERT INTO part SELECT * FROM tpch1.part WHERE p_partkey <= 200000 / $K;
		CREATE TABLE partsupp LIKE tpch1.partsupp; INSERT INTO partsupp SELECT * FROM tpch1.partsupp WHERE ps_partkey <= 200000 / $K;
		CREATE TABLE customer LIKE tpch1.customer; INSERT INTO customer SELECT * FROM tpch1.customer WHERE c_custkey <= 150000 / $K;
		CREATE TABLE orders LIKE tpch1.orders; INSERT INTO orders SELECT * FROM tpch1.orders WHERE o_custkey <= 150000 / $K;
		CREATE TABLE lineitem LIKE tpch1.lineitem;
		INSERT INTO lineitem SELECT l.* FROM tpch1.lineitem l JOIN orders o ON o.o_orderkey = l.l_orderkey;
		DROP DATABASE tpch1;"
	cli petrel -e "CREATE DATABASE tpch"
	dump() { mariadb-dump --no-defaults -h127.0.0.1 -P"${PORT[mariadb]}" -uroot --skip-ssl --skip-comments --compact "$@" tpch; }
	dump --no-data | sed -e 's/ ENGINE=InnoDB.*;/;/' -e '/^\/\*/d' | cli petrel tpch
	dump --no-create-info --skip-add-locks --skip-disable-keys --net-buffer-length=200000 | sed -e '/^\/\*/d' | cli petrel tpch
	for t in nation region supplier part partsupp customer orders lineitem; do
		cli mariadb -N tpch -e "ANALYZE TABLE $t" >/dev/null
		cli petrel -N tpch -e "ANALYZE TABLE $t" >/dev/null
	done
	rows=$(cli petrel -N tpch -e "SELECT COUNT(*) FROM lineitem")
	echo "loaded in $(python3 -c "print(round($(now) - $t0))") s; lineitem rows: $rows" >&2
fi

# The queries, as go-tpc sends them (its /*PLACEHOLDER*/ dropped).
python3 - "$QFILE" "$D" <<'EOF'
import re, sys
src = open(sys.argv[1]).read()
for name, text in re.findall(r'\t(q\d+) = `(.*?)`', src, re.S):
    open(f"{sys.argv[2]}/{name}.sql", "w").write(text.replace("/*PLACEHOLDER*/", ""))
EOF

declare -A T S
for q in $QUERIES; do
	for n in petrel mariadb; do
		t0=$(now)
		if timeout "$QTIMEOUT" bash -c 'mariadb --no-defaults -h127.0.0.1 -P"$1" -uroot ${2:+-p$2} --skip-ssl -N -B tpch <"$3" >"$4" 2>&1' \
			_ "${PORT[$n]}" "${PW[$n]}" "$D/$q.sql" "$LOGS/$q.$n"; then
			S[$n,$q]=ok
		elif [ $? = 124 ]; then
			S[$n,$q]=timeout
			killq "$n"
			cli "$n" tpch -e "DROP VIEW IF EXISTS revenue0" >/dev/null 2>&1 || true
		else
			S[$n,$q]="error: $(grep -m1 ERROR "$LOGS/$q.$n" | cut -c1-120)"
			cli "$n" tpch -e "DROP VIEW IF EXISTS revenue0" >/dev/null 2>&1 || true
		fi
		T[$n,$q]=$(python3 -c "print(f'{$(now) - $t0:.2f}')")
	done
	echo "tpch $q petrel ${S[petrel,$q]} ${T[petrel,$q]} s, mariadb ${S[mariadb,$q]} ${T[mariadb,$q]} s" >&2
done

# cmp prints ok, "ok (order)" or WRONG with the first differing row.
cmp() {
	python3 - "$1" "$2" <<'EOF'
import sys
def rows(p): return [l.rstrip("\n").split("\t") for l in open(p)]
def same(x, y):
    if x == y: return True
    try: a, b = float(x), float(y)
    except ValueError: return False
    return abs(a - b) <= max(0.01, 0.01 * max(abs(a), abs(b)))
def eq(a, b): return len(a) == len(b) and all(len(r) == len(s) and all(map(same, r, s)) for r, s in zip(a, b))
a, b = rows(sys.argv[1]), rows(sys.argv[2])
if eq(a, b): print("ok")
elif eq(sorted(a), sorted(b)): print("ok (order)")
else:
    i = next((i for i in range(min(len(a), len(b))) if not eq([a[i]], [b[i]])), min(len(a), len(b)))
    print(f"WRONG: {len(a)} rows against {len(b)}; row {i}: " + (" | ".join(a[i]) if i < len(a) else "-") + " against " + (" | ".join(b[i]) if i < len(b) else "-"))
EOF
}

{
	echo "# TPC-H (go-tpc v1.0.7 queries), $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo
	echo "SF1 / SUBSET=$SUBSET ($rows lineitem rows), QTIMEOUT=$QTIMEOUT; petrel $(git rev-parse --short HEAD)"
	echo
	echo "| query | Petrel | Petrel s | MariaDB s | Petrel / MariaDB | Petrel rows |"
	echo "|---|---|---:|---:|---:|---:|"
	for q in $QUERIES; do
		st=${S[petrel,$q]}
		ratio=""
		if [ "$st" = ok ] && [ "${S[mariadb,$q]}" = ok ]; then
			st=$(cmp "$LOGS/$q.petrel" "$LOGS/$q.mariadb")
			ratio=$(python3 -c "print(f'{${T[petrel,$q]} / max(${T[mariadb,$q]}, 0.01):.1f}')")
		fi
		ms=${T[mariadb,$q]}
		[ "${S[mariadb,$q]}" = ok ] || ms="$ms (${S[mariadb,$q]})"
		nrows=""
		[ "${S[petrel,$q]}" != ok ] || nrows=$(wc -l <"$LOGS/$q.petrel")
		echo "| ${q^^} | $st | ${T[petrel,$q]} | $ms | $ratio | $nrows |"
	done
} | tee "$OUT_DIR/tpch-$STAMP.md"
if [ "${KEEP:-0}" = 1 ]; then
	echo "KEEP=1: servers up (petrel=${PORT[petrel]}, mariadb=${PORT[mariadb]}); ^C to stop" >&2
	while :; do
		sleep 3600 &
		wait $!
	done
fi
