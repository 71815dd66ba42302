#!/usr/bin/env bash
# TPC-C and TPC-H with pingcap's go-tpc v1.0.7 (issue 29): Petrel beside a
# MariaDB 10.11 anchor with equal durability (binlog, sync_binlog=1,
# innodb_flush_log_at_trx_commit=1, 512M buffer pool), each on a temporary
# datadir and a free port, both up for the whole run; every phase runs on
# each server in turn (SERVERS order), so the two are measured under the
# same host load. Figures: docs/PERFORMANCE.md, "TPC-C and TPC-H"
# (the full tables: docs/history/PERFORMANCE-log.md).
#
#   bench/tpc.sh
# Environment (defaults in brackets):
#   SERVERS      ["petrel mariadb"]
#   PHASES       ["tpcc tpch"]
#   WAREHOUSES   [1]    TPC-C warehouses
#   THREADS      [4]    TPC-C client threads; a list ("4 16 64") runs
#                       each count in turn (loads use the first)
#   DURATION     [30s]  TPC-C run time
#   CHECKTIMEOUT [300]  seconds for go-tpc's consistency check after the runs
#   SF           [1]    TPC-H scale factor (go-tpc takes integers only)
#   QUERIES      ["q1 ... q22"]
#   QTIMEOUT     [60]   seconds per TPC-H query; a query still running then
#                       is killed (KILL QUERY) and reported as "timeout";
#                       at SF 1 each answer is checked (go-tpc --check)
#                       and reported "wrong" if it is not TPC-H's
#   PETREL_BINARY  use this petrel instead of building ./cmd/petrel
#   PETREL_PPROF   passed to petrel (e.g. 127.0.0.1:6060: /debug/pprof)
#   KEEP         [0]    1: leave the servers up at the end (prints their
#                       ports and waits for ^C), to EXPLAIN or profile
#   ATTACH       [""]   "name:port:password ..." measures running servers
#                       instead of starting them (e.g. a KEEP=1 run's, after
#                       restarting Petrel on its datadir with another binary)
#   Phases: tpcc (load, run), tpch (load, queries), tpchq (queries only,
#   over an earlier tpch load)
#   OUT_DIR      [bench/out]
# Prints a markdown report and writes it to OUT_DIR/tpc-<date>.md; the
# go-tpc output of every phase is kept beside it (OUT_DIR/tpc-<date>/).
# Stops both servers and removes their datadirs on exit, including on ^C.
set -euo pipefail
cd "$(dirname "$0")/.."
SERVERS=${SERVERS:-"petrel mariadb"}
PHASES=${PHASES:-"tpcc tpch"}
WAREHOUSES=${WAREHOUSES:-1} THREADS=${THREADS:-4} DURATION=${DURATION:-30s}
LOADTHREADS=${THREADS%% *} # loads and checks use the first client count
SF=${SF:-1} QTIMEOUT=${QTIMEOUT:-60} CHECKTIMEOUT=${CHECKTIMEOUT:-300}
QUERIES=${QUERIES:-"q1 q2 q3 q4 q5 q6 q7 q8 q9 q10 q11 q12 q13 q14 q15 q16 q17 q18 q19 q20 q21 q22"}
OUT_DIR=${OUT_DIR:-bench/out}
# At SF 1 go-tpc checks each answer against TPC-H's validation output
# (its --check: TPC-H 2.1.3.5's rounding rules); a query answered
# otherwise is reported "wrong".
CHECKFLAG=
[ "$SF" = 1 ] && CHECKFLAG=--check
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	export PATH=/usr/local/go/bin:$PATH
fi
export PATH=$PATH:$(go env GOPATH)/bin
command -v go-tpc >/dev/null 2>&1 || go install github.com/pingcap/go-tpc/cmd/go-tpc@v1.0.7
if ! command -v mariadbd >/dev/null 2>&1 && [ ! -x /usr/sbin/mariadbd ]; then
	bash scripts/deps.sh
fi
PETREL=${PETREL_BINARY:-}
if [ -z "$PETREL" ] && [ -z "${ATTACH:-}" ]; then
	mkdir -p bin
	go build -o bin/petrel ./cmd/petrel
	PETREL=$PWD/bin/petrel
fi
STAMP=$(date -u +%Y%m%d-%H%M)
mkdir -p "$OUT_DIR/tpc-$STAMP"
LOGS=$(cd "$OUT_DIR/tpc-$STAMP" && pwd)
REPORT=$OUT_DIR/tpc-$STAMP.md
D=$(mktemp -d /tmp/tpc-XXXX)
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

declare -A PORT PID PW
PIDS=""
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null || true; done
	for p in $PIDS; do wait "$p" 2>/dev/null || true; done
	rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start() { # name
	local n=$1 port
	port=$(freeport)
	mkdir -p "$D/$n"
	if [ "$n" = mariadb ]; then
		mariadb-install-db --no-defaults --datadir="$D/$n/data" --auth-root-authentication-method=normal >/dev/null 2>&1
		/usr/sbin/mariadbd --no-defaults --datadir="$D/$n/data" --port="$port" --bind-address=127.0.0.1 \
			--socket="$D/$n/s.sock" --server-id=1 --skip-name-resolve \
			--log-bin=mysql-bin --binlog-format=ROW --sync-binlog=1 --innodb-flush-log-at-trx-commit=1 \
			--innodb-buffer-pool-size=512M --max-connections=1000 --user=root >"$LOGS/$n.log" 2>&1 &
		PW[$n]=""
	else
		PETREL_PPROF=${PETREL_PPROF:-} "$PETREL" server --datadir "$D/$n/data" --port "$port" --server-id 1 \
			--root-password pw >"$LOGS/$n.log" 2>&1 &
		PW[$n]=pw
	fi
	PID[$n]=$! PORT[$n]=$port
	PIDS="$PIDS $!"
	for _ in $(seq 300); do
		cli "$n" -e "SELECT 1" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	echo "tpc.sh: $n did not start; log in $LOGS/$n.log" >&2
	exit 1
}
cli() { # name args...
	local n=$1
	shift
	mariadb --no-defaults -h127.0.0.1 -P"${PORT[$n]}" -uroot ${PW[$n]:+-p${PW[$n]}} --skip-ssl "$@"
}
tpc() { # name args...
	local n=$1
	shift
	go-tpc -H 127.0.0.1 -P "${PORT[$n]}" -U root ${PW[$n]:+-p ${PW[$n]}} "$@"
}
now() { date +%s.%N; }
secs() { python3 -c "print(round($2 - $1, 1))"; }

# killq kills every statement still running on server n except our own:
# text ones (Query) and prepared ones (Execute: go-tpc's check prepares
# its queries, and a timed-out client leaves them running on the server).
killq() {
	local n=$1 ids
	ids=$(cli "$n" -N -e "SELECT id FROM information_schema.processlist WHERE command IN ('Query', 'Execute') AND id <> CONNECTION_ID()" 2>/dev/null || true)
	for id in $ids; do cli "$n" -e "KILL QUERY $id" >/dev/null 2>&1 || true; done
}

declare -A R
if [ -n "${ATTACH:-}" ]; then
	SERVERS=""
	for a in $ATTACH; do
		IFS=: read -r n p pw <<<"$a"
		PORT[$n]=$p PW[$n]=$pw SERVERS="$SERVERS $n"
	done
	SERVERS=${SERVERS# }
else
	for n in $SERVERS; do start "$n"; done
fi
echo "servers: $(for n in $SERVERS; do printf '%s=127.0.0.1:%s ' "$n" "${PORT[$n]}"; done)" >&2

for phase in $PHASES; do
	case $phase in
	tpcc)
		for n in $SERVERS; do
			cli "$n" -e "CREATE DATABASE tpcc"
			t0=$(now)
			tpc "$n" tpcc -D tpcc --warehouses "$WAREHOUSES" prepare -T "$LOADTHREADS" --no-check >"$LOGS/$n-tpcc-prepare.log" 2>&1
			R[$n,tpcc_load]=$(secs "$t0" "$(now)")
		done
		# One run per client count (THREADS="4 16 64"), each on each
		# server in turn.
		for th in $THREADS; do
			for n in $SERVERS; do
				tpc "$n" tpcc -D tpcc --warehouses "$WAREHOUSES" run -T "$th" --time "$DURATION" \
					>"$LOGS/$n-tpcc-run-$th.log" 2>&1 || true
				R[$n,tpmc_$th]=$(grep -o 'tpmC: [0-9.]*' "$LOGS/$n-tpcc-run-$th.log" | tail -1 | cut -d' ' -f2)
				R[$n,tpcc_sum]=$(sed -n '/Finished/,$p' "$LOGS/$n-tpcc-run-$th.log" | grep -E '^\[Summary\]' || true)
			done
		done
		# TPC-C's consistency conditions (3.3.2.1-12) on the data the
		# runs left.
		# TPC-C's consistency conditions 3.3.2.1-4 in SQL (each query
		# counts the warehouses or districts that break one; all must be
		# 0), then go-tpc's own check.
		for n in $SERVERS; do
			bad=$(cli "$n" -N -D tpcc -e "
				SELECT COUNT(*) FROM warehouse w WHERE w_ytd <> (SELECT SUM(d_ytd) FROM district WHERE d_w_id = w_id);
				SELECT COUNT(*) FROM district WHERE d_next_o_id - 1 <> (SELECT MAX(o_id) FROM orders WHERE o_w_id = d_w_id AND o_d_id = d_id)
					OR d_next_o_id - 1 <> (SELECT MAX(no_o_id) FROM new_order WHERE no_w_id = d_w_id AND no_d_id = d_id);
				SELECT COUNT(*) FROM district WHERE (SELECT MAX(no_o_id) - MIN(no_o_id) + 1 - COUNT(*) FROM new_order WHERE no_w_id = d_w_id AND no_d_id = d_id) <> 0;
				SELECT COUNT(*) FROM district WHERE (SELECT SUM(o_ol_cnt) FROM orders WHERE o_w_id = d_w_id AND o_d_id = d_id)
					<> (SELECT COUNT(*) FROM order_line WHERE ol_w_id = d_w_id AND ol_d_id = d_id);" 2>&1 | tr '\n' ' ')
			if [ "$bad" = "0 0 0 0 " ]; then R[$n,tpcc_cond]=pass; else R[$n,tpcc_cond]="FAILED ($bad)"; fi
		done
		# Condition 3.3.2.10 reads history once per customer through
		# an index on its warehouse alone (go-tpc's schema), quadratic on
		# both servers: CHECKTIMEOUT bounds the check, and "timeout"
		# names the condition it was on.
		for n in $SERVERS; do
			if timeout "$CHECKTIMEOUT" go-tpc -H 127.0.0.1 -P "${PORT[$n]}" -U root ${PW[$n]:+-p ${PW[$n]}} \
				tpcc -D tpcc --warehouses "$WAREHOUSES" check -T "$LOADTHREADS" >"$LOGS/$n-tpcc-check.log" 2>&1; then
				if grep -qiE 'failed|error' "$LOGS/$n-tpcc-check.log"; then
					R[$n,tpcc_check]=FAILED
				else
					R[$n,tpcc_check]=pass
				fi
			else
				R[$n,tpcc_check]="timeout at $(grep -o 'condition [0-9.]*' "$LOGS/$n-tpcc-check.log" | tail -1)"
				killq "$n"
			fi
		done
		;;
	tpch | tpchq)
		for n in $SERVERS; do
			[ "$phase" = tpch ] || break
			cli "$n" -e "CREATE DATABASE tpch"
			t0=$(now)
			tpc "$n" tpch -D tpch --sf "$SF" prepare -T "$LOADTHREADS" >"$LOGS/$n-tpch-prepare.log" 2>&1
			R[$n,tpch_load]=$(secs "$t0" "$(now)")
		done
		for q in $QUERIES; do
			for n in $SERVERS; do
				t0=$(now)
				if timeout "$QTIMEOUT" go-tpc -H 127.0.0.1 -P "${PORT[$n]}" -U root ${PW[$n]:+-p ${PW[$n]}} \
					tpch -D tpch --sf "$SF" run --queries "$q" --count 1 $CHECKFLAG >"$LOGS/$n-tpch-$q.log" 2>&1; then
					if grep -q "check $q failed" "$LOGS/$n-tpch-$q.log"; then
						R[$n,$q]=wrong
					elif grep -q "${q^^}_ERR\|Error" "$LOGS/$n-tpch-$q.log"; then
						R[$n,$q]=error
					else
						R[$n,$q]=$(secs "$t0" "$(now)")
					fi
				else
					R[$n,$q]=timeout
					killq "$n"
				fi
				echo "tpch $q $n ${R[$n,$q]}" >&2
			done
		done
		;;
	esac
done

{
	echo "# go-tpc v1.0.7, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo
	echo "SERVERS=\"$SERVERS\" WAREHOUSES=$WAREHOUSES THREADS=$THREADS DURATION=$DURATION SF=$SF QTIMEOUT=$QTIMEOUT; petrel $(git rev-parse --short HEAD)"
	echo
	echo "| measure | $(echo $SERVERS | sed 's/ / | /g') |"
	echo "|---|$(for _ in $SERVERS; do printf -- '---:|'; done)"
	row() { printf '| %s |' "$1"; for n in $SERVERS; do printf ' %s |' "${R[$n,$2]:-}"; done; echo; }
	case " $PHASES " in *" tpcc "*)
		row "TPC-C load, s" tpcc_load
		for th in $THREADS; do row "tpmC, $th threads" "tpmc_$th"; done
		row "conditions 3.3.2.1-4 after the runs" tpcc_cond
		row "go-tpc check after the runs" tpcc_check
		;;
	esac
	case " $PHASES " in *" tpch "* | *" tpchq "*)
		row "TPC-H load, s" tpch_load
		for q in $QUERIES; do row "${q^^}, s" "$q"; done
		;;
	esac
	case " $PHASES " in *" tpcc "*)
		for n in $SERVERS; do
			echo
			echo "$n TPC-C summary:"
			echo '```'
			echo "${R[$n,tpcc_sum]}"
			echo '```'
		done
		;;
	esac
} | tee "$REPORT"
if [ "${KEEP:-0}" = 1 ]; then
	echo "KEEP=1: servers up ($(for n in $SERVERS; do printf '%s=%s ' "$n" "${PORT[$n]}"; done)); ^C to stop" >&2
	# A background sleep, so the INT/TERM trap runs at once.
	while :; do
		sleep 3600 &
		wait $!
	done
fi
