#!/usr/bin/env bash
# Clone rate benchmark (issue 32): a Petrel donor holding SIZE_MB of
# sysbench tables is cloned with `petrel clone` into a new datadir on the
# same host; prints the bytes, seconds and MB/s the clone reports, the
# donor's sysbench write throughput without and during a clone (when
# LOAD=1), and checks the clone starts and holds the donor's GTID set and
# row count.
#
# The lab measures a clone with its own table and load, beside
# mariadb-backup, with an end-state check: `petrel-lab run clone`
# (docs/LAB.md). This script stays for the large sysbench donor under
# write load (SIZE_MB, LOAD, ANCHOR) that docs/PERFORMANCE.md quotes; it
# is no wrapper of the lab, whose donor would change what it measures.
#
# Environment (defaults in brackets):
#   SIZE_MB [1000]  approximate datadir size (sysbench rows of ~250 bytes)
#   TABLES [8]      sysbench tables
#   LOAD [1]        also run oltp_write_only on the donor, DURATION seconds
#                   alone and then during a clone (THREADS threads)
#   DURATION [20], THREADS [8]
#   BANDWIDTH [0]   --max-bandwidth of the clone, MiB/s (0 = unlimited)
#   COMPRESS [0]    1: --compress (zstd chunks, clone_enable_compression)
#   STREAM [1]      0: --stream=false (CLONE READ result sets, not the data
#                   stream)
#   ROUNDS [1]      idle clones (each followed by its MariaDB anchor when
#                   ANCHOR=1, and the ratio of the two rates printed)
#   ANCHOR [0]      1: the same run also measures the anchor a MariaDB user
#                   has: a MariaDB 10.11 donor (mariadbd on a temporary
#                   datadir and free port, loaded with the same sysbench
#                   tables, in parallel with Petrel's) copied with
#                   `mariadb-backup --backup`, `--prepare` and `--copy-back`
#                   into a new datadir, which is then started and counted;
#                   idle and (LOAD=1) under the same oltp_write_only load,
#                   each MariaDB step right after the matching Petrel clone
#                   so the host's drift hits both
#   MARIADB_ARGS    extra mariadbd arguments [--innodb-buffer-pool-size=1G]
#   WORK [a temporary directory], kept with KEEP=1; a WORK kept from an
#                   earlier run keeps its donors (no new prepare; SIZE_MB and
#                   TABLES must be the same)
# Example: SIZE_MB=200 LOAD=0 bench/clone.sh
#          SIZE_MB=1000 ANCHOR=1 DURATION=60 bench/clone.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	export PATH=/usr/local/go/bin:$PATH
fi
SIZE_MB=${SIZE_MB:-1000} TABLES=${TABLES:-8} LOAD=${LOAD:-1} DURATION=${DURATION:-20} THREADS=${THREADS:-8}
BANDWIDTH=${BANDWIDTH:-0} COMPRESS=${COMPRESS:-0} ANCHOR=${ANCHOR:-0} STREAM=${STREAM:-1} ROUNDS=${ROUNDS:-1}
MARIADB_ARGS=${MARIADB_ARGS:---innodb-buffer-pool-size=1G}
WORK=${WORK:-$(mktemp -d /tmp/petrel-clone-bench.XXXXXX)}
PW=bench
BIN=$WORK/petrel
go build -o "$BIN" ./cmd/petrel
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
DPORT=$(port) CPORT=$(port) MPORT=$(port) RPORT=$(port)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	[ "${KEEP:-0}" = 1 ] || rm -rf "$WORK"
}
trap cleanup EXIT
sql() { mariadb -h127.0.0.1 -P"$1" -uroot -p"$PW" -N -B -e "$2"; }
waitup() { for _ in $(seq 300); do sql "$1" "SELECT 1" >/dev/null 2>&1 && return 0; sleep 0.2; done; echo "server on $1 did not start" >&2; exit 1; }
# MariaDB: root@127.0.0.1 with an empty password (mariadb-install-db's
# normal authentication).
msql() { mariadb -h127.0.0.1 -P"$1" -uroot -N -B -e "$2"; }
mwaitup() { for _ in $(seq 600); do msql "$1" "SELECT 1" >/dev/null 2>&1 && return 0; sleep 0.2; done; echo "mariadbd on $1 did not start" >&2; exit 1; }
MARIADBD=$(command -v mariadbd || echo /usr/sbin/mariadbd)
USERARG=()
[ "$(id -u)" != 0 ] || USERARG=(--user=root)
# mstart DATADIR PORT SERVER_ID: mariadbd in the background (PID in MPID).
mstart() {
	"$MARIADBD" --no-defaults --datadir="$1" --port="$2" --bind-address=127.0.0.1 \
		--socket="$1/mysqld.sock" --pid-file="$1/mysqld.pid" --server-id="$3" \
		--skip-name-resolve --log-bin=mysql-bin $MARIADB_ARGS "${USERARG[@]}" >"$1.log" 2>&1 &
	MPID=$!
	PIDS+=($MPID)
	mwaitup "$2"
}

"$BIN" server --datadir "$WORK/donor" --port "$DPORT" --server-id 1 --root-password "$PW" >"$WORK/donor.log" 2>&1 &
PIDS+=($!)
waitup "$DPORT"
ROWS=$((SIZE_MB * 1000000 / 250 / TABLES))
SB=(--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$DPORT" --mysql-user=root --mysql-password="$PW" --mysql-db=sbtest --tables="$TABLES" --table-size="$ROWS")
MSB=(--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$MPORT" --mysql-user=root --mysql-db=sbtest --tables="$TABLES" --table-size="$ROWS")
if [ "$ANCHOR" = 1 ]; then
	if [ ! -d "$WORK/mdonor/mysql" ]; then
		mariadb-install-db --no-defaults --datadir="$WORK/mdonor" --auth-root-authentication-method=normal \
			--skip-test-db --skip-name-resolve "${USERARG[@]}" >"$WORK/install-db.log" 2>&1
	fi
	mstart "$WORK/mdonor" "$MPORT" 11
	MDONOR=$MPID
fi
MPREP=
if [ "$ANCHOR" = 1 ] && [ -z "$(msql "$MPORT" "SHOW DATABASES LIKE 'sbtest'")" ]; then
	msql "$MPORT" "CREATE DATABASE sbtest"
	echo "preparing $TABLES tables x $ROWS rows on the MariaDB donor (in parallel)..."
	( t0=$(date +%s); sysbench oltp_write_only "${MSB[@]}" --threads=4 prepare >/dev/null
	  echo "MariaDB donor prepared in $(($(date +%s) - t0)) s" ) &
	MPREP=$!
fi
if [ -z "$(sql "$DPORT" "SHOW DATABASES LIKE 'sbtest'")" ]; then
	sql "$DPORT" "CREATE DATABASE sbtest"
	echo "preparing $TABLES tables x $ROWS rows on the donor..."
	t0=$(date +%s)
	sysbench oltp_write_only "${SB[@]}" --threads=4 prepare >/dev/null
	echo "prepared in $(($(date +%s) - t0)) s"
fi
[ -z "$MPREP" ] || wait "$MPREP"
echo "donor: data $(du -sm "$WORK/donor/data" | cut -f1) MB, binlog $(du -sm "$WORK/donor/binlog" | cut -f1) MB"
[ "$ANCHOR" = 1 ] && echo "MariaDB donor: datadir $(du -sm --exclude='mysql-bin.*' "$WORK/mdonor" | cut -f1) MB without binlogs"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

tps() { awk '/transactions:/ {gsub(/[(]/,"",$3); print $3}'; }
pct() { python3 -c "print(f'{100*$1/$2:.0f}')"; }

# petrel_clone LABEL: one `petrel clone` of the donor; petrel_check
# LOAD-OR-IDLE starts the clone and checks its rows and GTID set.
petrel_clone() {
	rm -rf "$WORK/clone"
	echo "== Petrel clone, $1 (load average $(cut -d' ' -f1 /proc/loadavg))"
	CLONE_CMD=("$BIN" clone --from "127.0.0.1:$DPORT" --user root --password "$PW" --datadir "$WORK/clone" --max-bandwidth "$BANDWIDTH"
		--compress="$([ "$COMPRESS" = 1 ] && echo true || echo false)" --stream="$([ "$STREAM" = 1 ] && echo true || echo false)")
	echo "command: ${CLONE_CMD[*]}"
	/usr/bin/time -f "clone process: %e s wall, %U s user, %S s sys, %M KiB max RSS" "${CLONE_CMD[@]}" >"$WORK/pclone.out" 2>&1 || { cat "$WORK/pclone.out" >&2; exit 1; }
	grep -v "level=INFO" "$WORK/pclone.out" || true
	# PRATE: the clone's own figure (copy, checks and fsyncs); PWALL: the
	# whole process (login, snapshot, copy, sync, switch-in).
	PRATE=$(sed -n 's/.*s (\([0-9]*\) MB\/s).*/\1/p' "$WORK/pclone.out")
	PWALL=$(python3 -c "print(f'{$(sed -n 's/^petrel clone: \([0-9]*\) bytes.*/\1/p' "$WORK/pclone.out")/1e6/$(sed -n 's/^clone process: \([0-9.]*\) s wall.*/\1/p' "$WORK/pclone.out"):.0f}')")
	echo "petrel clone, whole process: $PWALL MB/s"
	echo "donor: $(grep -o 'commits_paused=[^ ]*' "$WORK/donor.log" | tail -1) while it took the snapshot"
	echo "clone datadir: $(du -sm "$WORK/clone/data" | cut -f1) MB"
}
petrel_check() {
	"$BIN" server --datadir "$WORK/clone" --port "$CPORT" --server-id 2 >"$WORK/clone.log" 2>&1 &
	local cpid=$!
	PIDS+=($cpid)
	waitup "$CPORT"
	for t in $(seq "$TABLES"); do
		n=$(sql "$CPORT" "SELECT COUNT(*) FROM sbtest.sbtest$t")
		[ "$1" = load ] || [ "$n" = "$ROWS" ] || { echo "sbtest$t: $n rows on the clone, want $ROWS" >&2; exit 1; }
	done
	echo "clone gtid_executed: $(sql "$CPORT" "SELECT @@GLOBAL.gtid_executed")"
	echo "donor gtid_executed: $(sql "$DPORT" "SELECT @@GLOBAL.gtid_executed")"
	kill "$cpid"; wait "$cpid" 2>/dev/null || true
	rm -rf "$WORK/clone"
}

# maria_anchor LABEL: mariadb-backup --backup, --prepare, --copy-back into
# a new datadir (what a clone produces: a startable copy), each step timed;
# maria_check starts the copy and counts its rows.
maria_anchor() {
	rm -rf "$WORK/mbackup" "$WORK/mrestore"
	echo "== MariaDB anchor, $1 (load average $(cut -d' ' -f1 /proc/loadavg))"
	local t0 t1 t2 t3 bytes
	t0=$(date +%s.%N)
	mariadb-backup --backup --host=127.0.0.1 --port="$MPORT" --user=root --target-dir="$WORK/mbackup" >"$WORK/mbackup.log" 2>&1 || { tail -20 "$WORK/mbackup.log" >&2; exit 1; }
	t1=$(date +%s.%N)
	bytes=$(du -sb "$WORK/mbackup" | cut -f1)
	mariadb-backup --prepare --target-dir="$WORK/mbackup" >"$WORK/mprepare.log" 2>&1 || { tail -20 "$WORK/mprepare.log" >&2; exit 1; }
	t2=$(date +%s.%N)
	mariadb-backup --copy-back --target-dir="$WORK/mbackup" --datadir="$WORK/mrestore" >"$WORK/mcopy.log" 2>&1 || { tail -20 "$WORK/mcopy.log" >&2; exit 1; }
	t3=$(date +%s.%N)
	python3 - "$bytes" "$t0" "$t1" "$t2" "$t3" <<'PY'
import sys
b, t0, t1, t2, t3 = int(sys.argv[1]), *map(float, sys.argv[2:])
mb = b / 1e6
print(f"mariadb-backup: {mb:.0f} MB; --backup {t1-t0:.1f} s ({mb/(t1-t0):.0f} MB/s), "
      f"--prepare {t2-t1:.1f} s, --copy-back {t3-t2:.1f} s; "
      f"total {t3-t0:.1f} s = {mb/(t3-t0):.0f} MB/s")
PY
	MRATE=$(python3 -c "print(f'{$bytes/1e6/($t3-$t0):.0f}')")
	echo "command: mariadb-backup --backup --target-dir=DIR; mariadb-backup --prepare --target-dir=DIR; mariadb-backup --copy-back --target-dir=DIR --datadir=NEW"
	rm -rf "$WORK/mbackup"
}
maria_check() {
	mstart "$WORK/mrestore" "$RPORT" 12
	local rpid=$MPID
	for t in $(seq "$TABLES"); do
		n=$(msql "$RPORT" "SELECT COUNT(*) FROM sbtest.sbtest$t")
		[ "$1" = load ] || [ "$n" = "$ROWS" ] || { echo "MariaDB copy sbtest$t: $n rows, want $ROWS" >&2; exit 1; }
	done
	echo "MariaDB copy started, gtid_binlog_pos on the donor $(msql "$MPORT" "SELECT @@GLOBAL.gtid_binlog_pos"), $TABLES tables counted"
	kill "$rpid"; wait "$rpid" 2>/dev/null || true
	rm -rf "$WORK/mrestore"
}

# under_load LABEL SBARGS-ARRAY-NAME COPY CHECK: oltp_write_only alone,
# then during COPY (started 2 s into the window); CHECK after the window.
under_load() {
	local -n args=$2
	local base during
	base=$(sysbench oltp_write_only "${args[@]}" --threads="$THREADS" --time="$DURATION" --report-interval=0 run | tps)
	echo "$1 oltp_write_only alone: $base tps"
	sysbench oltp_write_only "${args[@]}" --threads="$THREADS" --time="$DURATION" --report-interval=0 run >"$WORK/during.txt" &
	local sbpid=$!
	sleep 2
	local s0=$SECONDS
	"$3" "under oltp_write_only, $THREADS threads"
	local took=$((SECONDS - s0))
	wait "$sbpid"
	"$4" load
	during=$(tps <"$WORK/during.txt")
	echo "$1 oltp_write_only during the copy (${DURATION}s window containing it): $during tps ($(pct "$during" "$base")% of alone)"
	[ $((took + 2)) -le "$DURATION" ] || echo "warning: the copy took ${took}s, longer than the window: raise DURATION"
}

RATIOS=()
for r in $(seq "$ROUNDS"); do
	petrel_clone "idle, round $r"
	petrel_check idle
	if [ "$ANCHOR" = 1 ]; then
		maria_anchor "idle, round $r"
		maria_check idle
		RATIOS+=("round $r: Petrel $PRATE MB/s (whole process $PWALL) / mariadb-backup $MRATE MB/s = $(python3 -c "print(f'{$PRATE/$MRATE:.2f} ({$PWALL/$MRATE:.2f})')")")
	fi
done
[ "${#RATIOS[@]}" = 0 ] || printf 'ratio %s\n' "${RATIOS[@]}"
if [ "$LOAD" = 1 ]; then
	under_load "Petrel donor" SB petrel_clone petrel_check
	[ "$ANCHOR" = 0 ] || under_load "MariaDB donor" MSB maria_anchor maria_check
fi
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
