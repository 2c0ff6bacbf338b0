#!/usr/bin/env bash
# Times a durable txedit commit of 1,000 files x 10 edits side by side with
# plain os.WriteFile (no fsync) and git apply of the same change, in one
# run, and prints medians and ratios. Extra arguments go to commitbench
# (-files, -edits, -runs, -dir).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v git >/dev/null || { echo "git is needed for the comparison" >&2; exit 1; }
echo "machine: $(nproc) cores, $(uname -r), $(df -T /tmp | awk 'NR==2{print $2}') under /tmp"
go run ./bench/commitbench "$@"
echo
echo "per-phase breakdown (Go benchmark):"
go test ./bench/ -run '^$' -bench 'Commit1000x10$' -benchtime 5x
