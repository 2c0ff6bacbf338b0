#!/usr/bin/env bash
# Builds the real-change corpus in OUTDIR: for each pair of consecutive
# releases of the modules internal/modcorpus pins (cobra, golang.org/x/tools,
# x/net, x/text, x/mod, go-mssqldb, goldmark, toml, goquery), a directory
# with the old tree, the new tree and git's diff of the two, and
# OUTDIR/index.tsv listing them. Downloads go through the go command and are
# cached (-cache DIR, or $TXEDIT_MODCORPUS_CACHE, default the user's cache
# directory), so a second run is offline. Nothing of it is committed.
#
#   testdata/modcorpus/build.sh /tmp/modcorpus
#   testdata/modcorpus/build.sh -cache /tmp/cache /tmp/modcorpus
set -euo pipefail
cd "$(dirname "$0")/../.."
exec go run ./internal/modcorpus/build "$@"
