#!/usr/bin/env bash
# Runs every Go fuzz target in the module for FUZZTIME each (default 10s).
# Targets are found by grepping _test.go files for `func FuzzXxx(`; go test
# accepts one -fuzz target per package per run, hence the loop.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	export PATH=/usr/local/go/bin:$PATH
fi
FUZZTIME=${FUZZTIME:-10s}

found=0
while IFS= read -r dir; do
	while IFS= read -r name; do
		found=$((found + 1))
		echo "fuzz: ./$dir $name for $FUZZTIME"
		go test -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" "./$dir"
	done < <(grep -ho '^func Fuzz[A-Za-z0-9_]*(' "$dir"/*_test.go | sed 's/^func //; s/($//' | sort -u)
done < <(grep -rl --include='*_test.go' '^func Fuzz' . | grep -v '/testdata/' | xargs -r -n1 dirname | sed 's|^\./||' | sort -u)

if [ "$found" = 0 ]; then
	echo "fuzz: no fuzz targets found"
fi
