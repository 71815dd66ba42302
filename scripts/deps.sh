#!/usr/bin/env bash
# Installs what Petrel's tests and benchmarks need on a fresh Debian 12
# machine, and does nothing but `go mod download` when it is all there:
#   mariadb-server  mariadbd, mariadb-install-db (side-by-side anchor, interop)
#   mariadb-client  mariadb, mariadb-slap, mariadb-binlog
#   sysbench        OLTP workloads
#   nftables, iproute2  link emulation (nft, ip/tc)
#   make, ca-certificates  `make test` itself, and TLS to the Go module proxy
#   python3-pymysql, python3-mysqldb  the Python drivers e2e runs against
#                   Petrel and MariaDB (Debian's /usr/bin/python3)
#   chromium        headless, for labrun's test that the lab report's charts render
#   mariadb-backup  the lab's clone experiment (MariaDB's side)
#   mariadb-test    MariaDB's mysql-test-run and main suite, run with --extern
#                   against Petrel and MariaDB (bench/mtr.sh, e2e TestMTRExtern)
# The mariadb-server package's own service is stopped (and disabled under
# systemd) right after installation: tests start their own servers.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	export PATH=/usr/local/go/bin:$PATH
fi

SUDO=()
if [ "$(id -u)" != 0 ]; then SUDO=(sudo); fi

# have NAME: true if NAME is on PATH or in an sbin directory (Debian puts
# mariadbd, nft and ip there, outside a normal user's PATH).
have() {
	command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || [ -x "/sbin/$1" ]
}

missing=()
# cc: the lab compiles its fsync delay library (lab/fsyncdelay.go).
for tool in mariadbd mariadb-install-db mariadb mariadb-slap mariadb-binlog mariadb-backup sysbench nft ip make chromium cc; do
	have "$tool" || missing+=("$tool")
done
[ -e /etc/ssl/certs/ca-certificates.crt ] || missing+=(ca-certificates)
# have_py MODULE: true if Debian's python3 imports MODULE.
have_py() {
	[ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import $1" >/dev/null 2>&1
}
[ -x /usr/share/mysql/mysql-test/mariadb-test-run.pl ] || missing+=(mariadb-test)
have_py pymysql || missing+=(python3-pymysql)
have_py MySQLdb || missing+=(python3-mysqldb)

# stop_mariadb_service stops the service apt may have started, by its own
# init system, then by the pid in its pid file; never by process name.
stop_mariadb_service() {
	if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
		echo "deps: systemctl disable --now mariadb"
		"${SUDO[@]}" systemctl disable --now mariadb >/dev/null 2>&1 || true
	elif [ -x /etc/init.d/mariadb ]; then
		echo "deps: /etc/init.d/mariadb stop"
		"${SUDO[@]}" /etc/init.d/mariadb stop >/dev/null 2>&1 || true
	fi
	local pidfile=/run/mysqld/mysqld.pid pid
	if [ -r "$pidfile" ]; then
		pid=$(cat "$pidfile")
		if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
			echo "deps: stopping the packaged mariadbd (pid $pid)"
			"${SUDO[@]}" kill -TERM "$pid" || true
			for _ in $(seq 1 60); do
				kill -0 "$pid" 2>/dev/null || break
				sleep 1
			done
			if kill -0 "$pid" 2>/dev/null; then
				echo "deps: pid $pid did not stop within 60s" >&2
				exit 1
			fi
		fi
	fi
}

if [ ${#missing[@]} -gt 0 ]; then
	echo "deps: missing: ${missing[*]}"
	echo "deps: apt-get update"
	"${SUDO[@]}" apt-get update
	pkgs=(mariadb-server mariadb-client sysbench nftables iproute2 make ca-certificates python3-pymysql python3-mysqldb chromium mariadb-backup mariadb-test gcc libc6-dev)
	echo "deps: apt-get install ${pkgs[*]}"
	"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${pkgs[@]}"
	stop_mariadb_service
	for tool in mariadbd mariadb-install-db mariadb mariadb-slap mariadb-binlog mariadb-backup sysbench nft ip make chromium; do
		if ! have "$tool"; then
			echo "deps: $tool still missing after install" >&2
			exit 1
		fi
	done
	if [ ! -x /usr/share/mysql/mysql-test/mariadb-test-run.pl ]; then
		echo "deps: mariadb-test's mariadb-test-run.pl still missing after install" >&2
		exit 1
	fi
	for mod in pymysql MySQLdb; do
		if ! have_py "$mod"; then
			echo "deps: python module $mod still missing after install" >&2
			exit 1
		fi
	done
else
	echo "deps: mariadb-server, mariadb-client, mariadb-test, sysbench, nftables, iproute2, python3-pymysql, python3-mysqldb already installed"
fi

echo "deps: go mod download"
go mod download
echo "deps: done"
