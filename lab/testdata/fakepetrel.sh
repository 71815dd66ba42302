#!/usr/bin/env bash
# Stands in for `petrel server` in lab's own tests: accepts petrel's flags
# and runs mariadbd with them, so the Petrel wrapper (start, ping with the
# root password, Stop, Kill, Restart) is tested without the real binary.
set -euo pipefail
if [ "${1:-}" != server ]; then
	echo "usage: $0 server --datadir DIR --port N --server-id N [--root-password PW]" >&2
	exit 2
fi
shift
datadir='' port='' sid=1 pw=''
while [ $# -gt 0 ]; do
	case $1 in
	--datadir) datadir=$2; shift 2 ;;
	--port) port=$2; shift 2 ;;
	--server-id) sid=$2; shift 2 ;;
	--root-password) pw=$2; shift 2 ;;
	*) echo "fakepetrel: unknown flag $1" >&2; exit 2 ;;
	esac
done
asroot=()
if [ "$(id -u)" = 0 ]; then asroot=(--user=root); fi
if [ ! -d "$datadir/mysql" ]; then
	mariadb-install-db --no-defaults --datadir="$datadir" --auth-root-authentication-method=normal \
		--skip-test-db --skip-name-resolve "${asroot[@]}" >/dev/null
fi
q="'"
printf "ALTER USER 'root'@'127.0.0.1' IDENTIFIED BY '%s';\n" "${pw//$q/$q$q}" >"$datadir/fakepetrel-init.sql"
echo "fakepetrel: starting on port $port" >&2
exec "${MARIADBD:-/usr/sbin/mariadbd}" --no-defaults --datadir="$datadir" --port="$port" \
	--bind-address=127.0.0.1 --socket="$datadir/mysqld.sock" --server-id="$sid" \
	--skip-name-resolve --init-file="$datadir/fakepetrel-init.sql" "${asroot[@]}"
