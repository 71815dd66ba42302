#!/usr/bin/env bash
# A longer site-failover campaign than the suite's 3 rounds: P, an
# intermediate replica R and a replica S with the source list [P 70, R 50]
# (SOURCE_CONNECTION_AUTO_FAILOVER=1, SOURCE_RETRY_COUNT=1,
# SOURCE_CONNECT_RETRY=1) under a write load on P. Each round kill -9s R
# (S moves to P), restarts it, then takes P's link down (S moves back to
# R). Prints every switch time, p50 and max; S ends identical to P.
#   bash scripts/failover-campaign.sh -n 10     (or ROUNDS=10: 20 switches)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${ROUNDS:-10}"
while getopts "n:" opt; do
	case "$opt" in
	n) ROUNDS="$OPTARG" ;;
	*) echo "usage: $0 [-n rounds]" >&2; exit 2 ;;
	esac
done
# Each round takes about 20 s; allow 60 s.
TIMEOUT="$(( ROUNDS * 60 + 600 ))s"
echo "site failover campaign: $ROUNDS rounds, $(( ROUNDS * 2 )) switches (timeout $TIMEOUT)"
PETREL_FAILOVER_KILLS="$ROUNDS" PETREL_LAB_STRICT=1 \
	go test -count=1 -timeout "$TIMEOUT" -run '^TestAsyncFailoverKills$' -v ./e2e 2>&1 |
	grep -E '^(=== RUN|--- |PASS|FAIL|ok|\s+repl_failover_test)'
