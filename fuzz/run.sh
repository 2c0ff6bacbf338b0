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
# A failing target does not stop the others; the script exits 1 at the
# end if any failed, naming them.
failed=()
while read -r dir target; do
	[[ "$target" =~ $filter ]] || continue
	echo "== $target (./$dir, $time)"
	if ! out=$(go test "./$dir" -run '^$' -fuzz "^$target\$" -fuzztime "$time" 2>&1); then
		failed+=("$target")
	fi
	grep -E '^(fuzz: elapsed.*execs|ok|FAIL|--- FAIL)|Failing input' <<<"$out" | tail -3 || true
done < <(grep -rHo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*' . | sed 's#^\./##; s#/[^/]*_test.go:func # #' | sort -u)
if [ ${#failed[@]} -gt 0 ]; then
	echo "failed: ${failed[*]}"
	exit 1
fi
