#!/usr/bin/env bash
# A longer crash campaign for the parallel applier than the suite's 3
# cycles: kill -9 the replica while 8 workers apply a backlog, restart it,
# check the recovered gtid_executed is gap-free and matches the rows it
# holds; at the end every table and gtid_executed equal the source's.
#   bash scripts/parallel-kill-campaign.sh -n 50     (or CYCLES=50)
set -euo pipefail
cd "$(dirname "$0")/.."
CYCLES="${CYCLES:-30}"
while getopts "n:" opt; do
	case "$opt" in
	n) CYCLES="$OPTARG" ;;
	*) echo "usage: $0 [-n cycles]" >&2; exit 2 ;;
	esac
done
# Each cycle takes about 6 s; allow 12 s.
TIMEOUT="$(( CYCLES * 12 + 600 ))s"
echo "parallel applier kill -9 campaign: $CYCLES cycles (timeout $TIMEOUT)"
PETREL_PARALLEL_KILL_CYCLES="$CYCLES" PETREL_LAB_STRICT=1 \
	go test -count=1 -timeout "$TIMEOUT" -run '^TestParallelReplicaKill9$' -v ./e2e 2>&1 |
	grep -E '^(=== RUN|--- |PASS|FAIL|ok|\s+repl_parallel_test)'
