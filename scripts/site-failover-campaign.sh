#!/usr/bin/env bash
# Site failover through `petrel cluster --sites 2 --replicas-per-site 1`:
# kill -9 of a site's relay (alternating sites) under a write load on the
# primary, N times; prints the time until the site's replica is on the
# primary (p50, p99, max); every replica ends identical to the primary.
# The suite runs one kill (TestClusterSites).
#   bash scripts/site-failover-campaign.sh -n 12
set -euo pipefail
cd "$(dirname "$0")/.."
KILLS="${KILLS:-12}"
while getopts "n:" opt; do
	case "$opt" in
	n) KILLS="$OPTARG" ;;
	*) echo "usage: $0 [-n kills]" >&2; exit 2 ;;
	esac
done
TIMEOUT="$(( KILLS * 60 + 600 ))s"
echo "site failover campaign: $KILLS relay kills (timeout $TIMEOUT)"
PETREL_SITE_KILLS="$KILLS" PETREL_LAB_STRICT=1 \
	go test -count=1 -timeout "$TIMEOUT" -run '^TestClusterSites$' -v ./e2e 2>&1 |
	grep -E '^(=== RUN|--- |PASS|FAIL|ok|\s+cluster_test)'
