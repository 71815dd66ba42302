#!/usr/bin/env bash
# TPC-H Q1 and Q6 over a generated 300,000-row lineitem (issue 29's scan
# costs without TPC-H's 20-minute load): two Petrel binaries (A and B,
# e.g. main before and after a change) beside a MariaDB 10.11, each on a
# temporary datadir and port, loaded with the same INSERT ... SELECT
# (bench/tpchscan/setup.sql), then ROUNDS interleaved rounds of each query
# on each server. Checks that every server answers each query with the
# same rows, prints one line per run and a summary of medians.
#
#   PETREL_A=/path/old PETREL_B=/path/new bench/tpchscan.sh
#   ROUNDS [3]   rounds of q1 and q6
# Stops every server it started and removes their datadirs on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
A=${PETREL_A:?PETREL_A: a petrel binary} B=${PETREL_B:?PETREL_B: a petrel binary}
command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || bash scripts/deps.sh
D=$(mktemp -d /tmp/tpchscan-XXXX)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$D"; }
trap cleanup EXIT INT TERM
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
declare -A PORT
for n in a b; do
	PORT[$n]=$(freeport)
	bin=$A; [ $n = b ] && bin=$B
	"$bin" server --datadir "$D/$n" --port "${PORT[$n]}" --root-password pw --skip-log-bin >"$D/$n.log" 2>&1 &
	PIDS+=($!)
done
PORT[maria]=$(freeport)
mkdir -p "$D/maria"
mariadb-install-db --no-defaults --datadir="$D/maria" --auth-root-authentication-method=normal --user=root >/dev/null 2>&1
/usr/sbin/mariadbd --no-defaults --datadir="$D/maria" --port="${PORT[maria]}" --bind-address=127.0.0.1 \
	--socket="$D/maria/s.sock" --user=root --skip-log-bin --innodb-buffer-pool-size=512M >"$D/maria.log" 2>&1 &
PIDS+=($!)
cli() {
	case $1 in
	maria) mariadb --no-defaults -h127.0.0.1 -P"${PORT[maria]}" -uroot --skip-ssl "${@:2}" ;;
	*) mariadb --no-defaults -h127.0.0.1 -P"${PORT[$1]}" -uroot -ppw --skip-ssl "${@:2}" ;;
	esac
}
for n in a b maria; do
	for _ in $(seq 150); do cli "$n" -e 'SELECT 1' >/dev/null 2>&1 && break; sleep 0.2; done
done
now() { date +%s.%N; }
declare -A T
for n in a b maria; do
	t0=$(now)
	cli "$n" <bench/tpchscan/setup.sql
	echo "load $n $(echo "$(now) - $t0" | bc)"
done
for r in $(seq "$ROUNDS"); do
	for q in q1 q6; do
		for n in a b maria; do
			t0=$(now)
			cli "$n" -N <"bench/tpchscan/$q.sql" >"$D/out-$n-$q.txt"
			t=$(echo "$(now) - $t0" | bc)
			T[$n,$q]="${T[$n,$q]:-} $t"
			echo "round $r $q $n $t"
		done
	done
done
status=0
for q in q1 q6; do
	for n in a b; do
		if ! cmp -s "$D/out-$n-$q.txt" "$D/out-maria-$q.txt"; then
			echo "$q: $n's rows differ from MariaDB's:"; cat "$D/out-$n-$q.txt" "$D/out-maria-$q.txt"; status=1
		fi
	done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
echo "| query | A, s | B, s | MariaDB, s | B/MariaDB |"
echo "|---|---:|---:|---:|---:|"
for q in q1 q6; do
	a=$(echo "${T[a,$q]}" | median) b=$(echo "${T[b,$q]}" | median) m=$(echo "${T[maria,$q]}" | median)
	echo "| $q | $a | $b | $m | $(echo "scale=1; $b / $m" | bc) |"
done
exit $status
