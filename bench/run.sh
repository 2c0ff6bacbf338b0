#!/usr/bin/env bash
# Runs txedit's side-by-side benchmarks (SPEC §11) and prints their tables.
#
#   bench/run.sh search [flags]   grep (CLI and tool), glob and batch read
#                                 against rg, fd and cat, on disk and on
#                                 tmpfs, 1x and 5x GOROOT/src
#                                 (flags: go run ./bench/searchbench -h)
#   bench/run.sh commit [flags]   a durable commit of 1,000 files (bench/commit.sh)
#   bench/run.sh replace [flags]  pattern_replace (bench/replacebench)
#   bench/run.sh all              all of them, default flags
#
# The peers must be installed: rg, fd (fdfind), git, sd.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
[ $# -gt 0 ] && shift
machine() {
	echo "machine: $(nproc) cores, $(uname -r), $(go version | cut -d' ' -f3), load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
}
case "$what" in
search)
	machine
	go run ./bench/searchbench -fs disk,tmpfs -scale 1,5 "$@"
	;;
commit)
	bench/commit.sh "$@"
	;;
replace)
	machine
	go run ./bench/replacebench "$@"
	;;
all)
	"$0" search
	"$0" commit
	"$0" replace
	;;
*)
	sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
	;;
esac
