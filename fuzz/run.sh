#!/usr/bin/env bash
# Runs every fuzz target of the module for a while (default 30s each):
#   bash fuzz/run.sh [DURATION] [NAME-REGEXP]
# Targets are found, not listed, so none is forgotten. CI runs only the
# seed corpora (plain go test). Crashers are written to
# <package>/testdata/fuzz/<Target>/ and become regression seeds: commit them.
set -euo pipefail
cd "$(dirname "$0")/.."
time="${1:-30s}"
filter="${2:-.}"
grep -rHo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*' . | sed 's#^\./##; s#/[^/]*_test.go:func # #' | sort -u |
while read -r dir target; do
	[[ "$target" =~ $filter ]] || continue
	echo "== $target (./$dir, $time)"
	go test "./$dir" -run '^$' -fuzz "^$target\$" -fuzztime "$time" 2>&1 | grep -E '^(fuzz: elapsed.*execs|ok|FAIL|--- FAIL)|Failing input' | tail -3
done
