#!/usr/bin/env bash
# A longer lossless campaign than the suite's 30 cycles: kill -9 the
# semi-sync primary at random moments under load, promote, check that no
# acknowledged commit is missing, rejoin the old primary, swap roles.
#   CYCLES=300 bash scripts/semisync-campaign.sh
set -euo pipefail
cd "$(dirname "$0")/.."
CYCLES="${CYCLES:-300}"
# Each cycle takes about 2 s; allow 5 s.
TIMEOUT="$(( CYCLES * 5 + 600 ))s"
echo "semi-sync lossless campaign: $CYCLES cycles (timeout $TIMEOUT)"
PETREL_LOSSLESS_CYCLES="$CYCLES" PETREL_LAB_STRICT=1 \
	go test -count=1 -timeout "$TIMEOUT" -run '^TestSemiSyncLossless$' -v ./e2e 2>&1 |
	grep -E '^(=== RUN|--- |PASS|FAIL|ok|\s+semisync_test)'
