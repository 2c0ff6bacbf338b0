#!/usr/bin/env bash
# Runs every fuzz target for a while (default 30s each): bash fuzz/run.sh [DURATION]
# CI runs only the seed corpora (plain go test). Crashers are written to
# <package>/testdata/fuzz/<Target>/ and become regression seeds: commit them.
set -euo pipefail
cd "$(dirname "$0")/.."
time="${1:-30s}"
targets=(
	"./hash FuzzParseToken"
	"./hash FuzzLines"
	"./plan FuzzParseCompile"
	"./apply FuzzEdit"
	"./apply FuzzUnified"
	"./journal FuzzDecodeManifest"
	"./journal FuzzReadPack"
	"./internal/ignore FuzzWildmatch"
	"./apply FuzzSed"
	"./apply FuzzLineEditsCompose"
)
for t in "${targets[@]}"; do
	set -- $t
	echo "== $2 ($1, $time)"
	go test "$1" -run '^$' -fuzz "^$2\$" -fuzztime "$time" 2>&1 | grep -E '^(fuzz: elapsed.*execs|ok|FAIL|--- FAIL)|Failing input' | tail -3
done
