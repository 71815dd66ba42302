#!/usr/bin/env bash
# MariaDB's own mysql-test-run (Debian's mariadb-test, unpatched) against
# Petrel, with MariaDB as the baseline in the same run (issue 31): every
# test of the list runs in its own `mtr --extern` invocation, over TCP on
# 127.0.0.1, first against a MariaDB this script starts with mtr's server
# options (include/default_mysqld.cnf: latin1, MyISAM by default, the
# small buffers, TZ=GMT-3), then against a Petrel built from the tree with
# the same options where it takes them. Before each test the server's
# non-system databases are dropped and `test` and `mtr` recreated as mtr's
# bootstrap makes them (extern mode cleans nothing up), mtr's suppression
# table and procedures loaded from include/mtr_warnings.sql.
# Figures and the list's rationale: docs/MTR.md.
#
#   bench/mtr.sh
# Environment (defaults in brackets):
#   SERVERS        ["mariadb petrel"]
#   TESTS          [bench/mtr/tests.txt]  one main-suite test a line, # comments
#   ONLY           [""]   space-separated test names, instead of TESTS
#   TEST_TIMEOUT   [60]   seconds per test and server (then "timeout")
#   TOTAL_TIMEOUT  [5400] seconds for the whole run; tests not reached
#                         then are reported "notrun"
#   PETREL_BINARY  use this petrel instead of building ./cmd/petrel
#   MTR_DIR        [/usr/share/mysql/mysql-test]
#   OUT            [bench/out/mtr-<date>.tsv]
#   KEEP_LOGS      [0]    1: keep every test's mtr output under OUT's
#                         directory (mtr-<date>/SERVER/TEST.log), and each
#                         server's log (mtr-<date>/SERVER.server.log)
# Output: OUT, a TSV with one line per test (test, MariaDB result and its
# first failing line, Petrel result and its first failing line; results
# pass, fail, skip, timeout, notrun), then the totals and the ratio of
# Petrel's passes to MariaDB's, also printed. Exit status 0 whatever the
# tests do; 1 if a server cannot start or the harness breaks.
# Both servers are stopped and their datadirs removed on exit, ^C included.
set -euo pipefail
cd "$(dirname "$0")/.."
SERVERS=${SERVERS:-"mariadb petrel"}
TESTS=${TESTS:-bench/mtr/tests.txt}
TEST_TIMEOUT=${TEST_TIMEOUT:-60} TOTAL_TIMEOUT=${TOTAL_TIMEOUT:-5400}
MTR_DIR=${MTR_DIR:-/usr/share/mysql/mysql-test}
STAMP=$(date -u +%Y%m%d-%H%M)
OUT=${OUT:-bench/out/mtr-$STAMP.tsv}
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	export PATH=/usr/local/go/bin:$PATH
fi
if [ ! -x "$MTR_DIR/mariadb-test-run.pl" ] || [ ! -x /usr/sbin/mariadbd ]; then
	bash scripts/deps.sh
fi
PETREL=${PETREL_BINARY:-}
if [ -z "$PETREL" ] && [[ " $SERVERS " == *" petrel "* ]]; then
	mkdir -p bin
	go build -o bin/petrel ./cmd/petrel
	PETREL=$PWD/bin/petrel
fi
if [ -n "${ONLY:-}" ]; then
	LIST=($ONLY)
else
	mapfile -t LIST < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$TESTS" | grep .)
fi
mkdir -p "$(dirname "$OUT")"
LOGS=${OUT%.tsv}
[ "${KEEP_LOGS:-0}" = 1 ] && mkdir -p "$LOGS"
D=$(mktemp -d /tmp/mtr-XXXX)
DEADLINE=$(($(date +%s) + TOTAL_TIMEOUT))

declare -A PORT PID
cleanup() {
	local p
	for p in "${PID[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${PID[@]}"; do
		for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null || true
	done
	rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
cli() { # name args...
	local n=$1
	shift
	timeout 60 mariadb --no-defaults -h127.0.0.1 -P"${PORT[$n]}" -uroot --skip-ssl "$@"
}

# A copy of mtr's tree made of symbolic links, laid out as Debian's
# /usr (bin, share/mysql/...) so mtr finds its binaries, with main/ as a
# directory of its own: mtr writes a failed test's .reject beside the
# .result, which must land here and not in the package's files.
FARM=$D/usr/share/mysql/mysql-test
mkdir -p "$FARM"
for d in bin sbin lib; do ln -s "/usr/$d" "$D/usr/$d"; done
for e in "$(dirname "$MTR_DIR")"/*; do
	[ "$e" = "$MTR_DIR" ] || ln -s "$e" "$D/usr/share/mysql/"
done
for e in "$MTR_DIR"/*; do
	[ "$(basename "$e")" = main ] || ln -s "$e" "$FARM/"
done
cp -rs "$MTR_DIR/main" "$FARM/main"

# start NAME: the server on a fresh datadir and a free port, with mtr's
# options (include/default_mysqld.cnf) where it matters for results:
# latin1, MyISAM by default, secure_file_priv on the vardir, small
# buffers, the server in TZ=GMT-3 as mtr starts it. The datadir is where
# mtr puts it, VARDIR/mysqld.1/data: tests that check files there (the
# .frm of a table) insist that they are under the vardir.
start() {
	local n=$1 port V
	port=$(freeport)
	V=$D/$n/var
	rm -rf "${D:?}/$n"
	mkdir -p "$V/mysqld.1"
	# What mtr's setup_vardir makes, which it skips when the vardir exists.
	cp -r "$MTR_DIR/std_data" "$V/std_data"
	if [ "$n" = mariadb ]; then
		mariadb-install-db --no-defaults --datadir="$V/mysqld.1/data" --auth-root-authentication-method=normal --skip-test-db \
			>"$D/$n/install.log" 2>&1
		TZ=GMT-3 /usr/sbin/mariadbd --no-defaults --datadir="$V/mysqld.1/data" --port="$port" --bind-address=127.0.0.1 \
			--socket="$D/$n/s.sock" --user=root --server-id=1 \
			--character-set-server=latin1 --local-infile --connect-timeout=60 \
			--secure-file-priv="$V" --log-bin-trust-function-creators=1 \
			--key-buffer-size=1M --sort-buffer-size=256K --max-heap-table-size=1M \
			--innodb-buffer-pool-size=8M --innodb-log-file-size=10M --slave-net-timeout=120 \
			--performance-schema --binlog-direct-non-transactional-updates \
			--default-storage-engine=myisam --use-stat-tables=preferably --histogram-type=json_hb \
			--general-log --general-log-file="$D/$n/general.log" --slow-query-log --slow-query-log-file="$D/$n/slow.log" \
			--ssl-ca="$MTR_DIR/std_data/cacert.pem" --ssl-cert="$MTR_DIR/std_data/server-cert.pem" \
			--ssl-key="$MTR_DIR/std_data/server-key.pem" >"$D/$n/server.log" 2>&1 &
	else
		# sql_mode: MariaDB's default, which the .result files were made with.
		cat >"$D/$n/my.cnf" <<-EOF
			[mysqld]
			character_set_server = latin1
			collation_server = latin1_swedish_ci
			local_infile = ON
			secure_file_priv = $V
			sort_buffer_size = 262144
			max_heap_table_size = 1048576
			default_storage_engine = MyISAM
			log_bin_trust_function_creators = ON
			sql_mode = STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION
		EOF
		TZ=GMT-3 "$PETREL" server --datadir "$V/mysqld.1/data" --port "$port" --server-id 1 --root-password pw \
			--config "$D/$n/my.cnf" >"$D/$n/server.log" 2>&1 &
	fi
	PID[$n]=$! PORT[$n]=$port
	local pw=""
	[ "$n" = petrel ] && pw=-ppw
	for _ in $(seq 300); do
		if ! kill -0 "${PID[$n]}" 2>/dev/null; then
			break
		fi
		if cli "$n" $pw -e "SELECT 1" >/dev/null 2>&1; then
			# mtr's tests log in as root without a password; mtr's
			# bootstrap removes the anonymous accounts.
			if [ "$n" = petrel ]; then
				cli "$n" -ppw -e "ALTER USER root@'%' IDENTIFIED BY ''; ALTER USER root@localhost IDENTIFIED BY ''"
			else
				cli "$n" -e "DELETE FROM mysql.global_priv WHERE user = ''; FLUSH PRIVILEGES"
				# mtr's bootstrap loads the test time zones (Europe/Moscow, MET, ...).
				cli "$n" mysql <"/usr/share/mysql/mysql_test_data_timezone.sql"
			fi
			return 0
		fi
		sleep 0.2
	done
	echo "mtr.sh: $n did not start:" >&2
	tail -20 "$D/$n/server.log" >&2
	exit 1
}

# stop NAME: SIGTERM, 30 s, then SIGKILL.
stop() {
	local n=$1
	kill "${PID[$n]}" 2>/dev/null || true
	for _ in $(seq 300); do kill -0 "${PID[$n]}" 2>/dev/null || break; sleep 0.1; done
	kill -9 "${PID[$n]}" 2>/dev/null || true
	wait "${PID[$n]}" 2>/dev/null || true
	unset "PID[$n]"
	if [ "${KEEP_LOGS:-0}" = 1 ]; then cat "$D/$n/server.log" >>"$LOGS/$n.server.log"; fi
}

# reset NAME: what mtr's bootstrap leaves before a test: no databases but
# the system ones, `test` and `mtr` (latin1), mtr's suppression tables and
# procedures (include/mtr_warnings.sql, its `delimiter X;` lines made the
# client's and its -- comment lines dropped, as mtr's sql_to_bootstrap
# does). Errors loading mtr_warnings.sql are kept in NAME/reset.err:
# Petrel has no stored procedures, so CALL mtr.add_suppression fails
# in the tests that use it.
reset() {
	local n=$1 db drop=""
	for db in $(cli "$n" -N -B -e "SHOW DATABASES"); do
		case $db in information_schema | mysql | performance_schema | sys) ;; *) drop="$drop DROP DATABASE \`$db\`;" ;; esac
	done
	cli "$n" -e "$drop CREATE DATABASE test CHARACTER SET latin1 COLLATE latin1_swedish_ci; CREATE DATABASE mtr CHARACTER SET latin1"
	sed -e '/^[[:space:]]*--/d' -e 's/^delimiter \(.*\);$/delimiter \1/' "$MTR_DIR/include/mtr_warnings.sql" |
		cli "$n" --force mtr >/dev/null 2>"$D/$n/reset.err" || true
}

# runtest NAME TEST: prints "RESULT<TAB>FIRST LINE" of one mtr --extern run.
runtest() {
	local n=$1 t=$2 log=$D/$n/mtr.log rc=0 v=$D/$n/var
	rm -rf "$v/log" "$v/run" "$v/tmp"
	mkdir -p "$v/log" "$v/run" "$v/tmp"
	(cd "$FARM" && timeout -k 10 "$TEST_TIMEOUT" perl ./mariadb-test-run.pl \
		--extern host=127.0.0.1 --extern port="${PORT[$n]}" --extern user=root --extern protocol=tcp \
		--vardir="$v" --tmpdir="$v/tmp" --nocheck-testcases \
		--testcase-timeout=$(((TEST_TIMEOUT + 59) / 60 + 1)) --suite-timeout=$(((TEST_TIMEOUT + 59) / 60 + 2)) \
		"main.$t") >"$log" 2>&1 </dev/null || rc=$?
	[ "${KEEP_LOGS:-0}" = 1 ] && mkdir -p "$LOGS/$n" && cp "$log" "$LOGS/$n/$t.log"
	python3 - "$log" "$t" "$rc" <<-'EOF'
		import re, sys
		log, test, rc = sys.argv[1], sys.argv[2], int(sys.argv[3])
		text = open(log, errors="replace").read().splitlines()
		def clean(s):
		    return " ".join(s.replace("\t", " ").split())[:400]
		status = None
		for i, line in enumerate(text):
		    m = re.match(r"main\.%s\s.*\[ (pass|fail|skipped|disabled) \]\s*(.*)" % re.escape(test), line)
		    if m:
		        status, rest, at = m.group(1), m.group(2), i
		        break
		if status is None:
		    if rc == 124 or rc == 137:
		        print("timeout\t")
		    else:
		        err = [l for l in text if "ERROR" in l or "error" in l]
		        print("fail\tmtr: " + clean(err[0] if err else (text[-1] if text else "no output")))
		    sys.exit(0)
		if status == "pass":
		    print("pass\t")
		elif status in ("skipped", "disabled"):
		    print("skip\t" + clean(rest))
		else:
		    detail = ""
		    body = text[at + 1:]
		    for j, l in enumerate(body):
		        if l.startswith("mysqltest: "):
		            # mysqltest's message runs to the next blank line: a
		            # multi-line query, or "In included file" first.
		            block = [l[len("mysqltest: "):]]
		            for k in body[j + 1:]:
		                if not k.strip():
		                    break
		                block.append(k)
		            msg = " ".join(" ".join(block).split())
		            inc = re.match(r'In included file "(?:\./)?([^"]+)": included from \S+ at line \d+: (.*)', msg)
		            if inc:
		                msg = "[" + inc.group(1) + "] " + inc.group(2)
		            q = re.search(r"query '(.*?)' ((failed|succeeded).*)$", msg)
		            if q and len(q.group(1)) > 120:
		                msg = msg[:q.start(1)] + q.group(1)[:117] + "..." + "' " + q.group(2)
		            detail = "mysqltest: " + msg
		            break
		    if not detail:
		        # A result difference: the first hunk's first expected (-)
		        # and first actual (+) lines.
		        for j, l in enumerate(body):
		            if l.startswith("@@ "):
		                minus = plus = None
		                for k in body[j + 1:]:
		                    if k.startswith("@@ ") or not k[:1] in ("-", "+", " "):
		                        break
		                    if k[:1] == "-" and minus is None:
		                        minus = k
		                    if k[:1] == "+" and plus is None:
		                        plus = k
		                detail = "diff: " + " | ".join(x for x in (minus, plus) if x is not None)
		                break
		    if not detail:
		        detail = next((l for l in body if l.strip() and not l.startswith("        Test ended")), "")
		    print("fail\t" + clean(detail))
	EOF
}

echo "mtr.sh: ${#LIST[@]} tests, servers: $SERVERS, per-test timeout ${TEST_TIMEOUT}s; logs in $D until exit" >&2
declare -A RES
for n in $SERVERS; do
	start "$n"
	for t in "${LIST[@]}"; do
		if [ ! -f "$MTR_DIR/main/$t.test" ]; then
			RES[$n/$t]=$'fail\tno such test in '"$MTR_DIR/main"
			continue
		fi
		if [ "$(date +%s)" -ge "$DEADLINE" ]; then
			RES[$n/$t]=$'notrun\toverall time bound reached'
			continue
		fi
		reset "$n"
		RES[$n/$t]=$(runtest "$n" "$t")
		# A test that stops the server (kill_mysqld.inc and the like
		# expect mtr to own it) leaves it dead for the next: start a
		# fresh one, and say so.
		if ! kill -0 "${PID[$n]}" 2>/dev/null || ! cli "$n" -e "SELECT 1" >/dev/null 2>&1; then
			RES[$n/$t]="${RES[$n/$t]} (the server was down after this test; restarted)"
			stop "$n"
			start "$n"
		fi
		printf '%s\t%s\t%s\n' "$n" "$t" "${RES[$n/$t]}" >&2
	done
	stop "$n"
done

NOTRUN=$'notrun\t'
{
	printf 'test\tmariadb\tmariadb_first_failure\tpetrel\tpetrel_first_failure\n'
	for t in "${LIST[@]}"; do
		printf '%s\t%s\t%s\n' "$t" "${RES[mariadb/$t]:-$NOTRUN}" "${RES[petrel/$t]:-$NOTRUN}"
	done
} >"$OUT"
python3 - "$OUT" <<-'EOF'
	import sys
	rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])][1:]
	tot = {}
	for r in rows:
	    for name, col in (("mariadb", 1), ("petrel", 3)):
	        tot.setdefault(name, {}).setdefault(r[col], 0)
	        tot[name][r[col]] += 1
	m, p = tot["mariadb"].get("pass", 0), tot["petrel"].get("pass", 0)
	lines = []
	for name in ("mariadb", "petrel"):
	    lines.append("#total\t%s\t%s" % (name, " ".join("%s=%d" % kv for kv in sorted(tot[name].items()))))
	both = sum(1 for r in rows if r[1] == "pass" and r[3] == "pass")
	ratio = "%.3f" % (p / m) if m else "n/a"
	lines.append("#ratio\tpetrel passes / mariadb passes\t%d/%d = %s (tests: %d; passing on both: %d)" % (p, m, ratio, len(rows), both))
	with open(sys.argv[1], "a") as f:
	    f.write("\n".join(lines) + "\n")
	print("\n".join(lines))
EOF
echo "mtr.sh: wrote $OUT" >&2
