#!/usr/bin/env bash
# Re-records the filesystem toolset's goldens: the answers of the official
# MCP filesystem server, at the release pinned in recorder/package.json,
# to the calls of scenarios.json, driven by the official TypeScript
# client. Needs node and npm (and the network, for npm ci); CI does not
# run it: tools/mcpserver's TestFilesystemGoldens replays the goldens.
#
#   bash tools/testdata/filesystem/record.sh
#
# To follow a newer release: change the version in recorder/package.json,
# run npm install --prefix tools/testdata/filesystem/recorder, record, and
# see what TestFilesystemGoldens says (docs/filesystem.md names the
# release it follows).
set -euo pipefail
cd "$(dirname "$0")"
npm ci --prefix recorder --no-audit --no-fund --loglevel=error
rm -f golden/*.json
TZ=UTC node recorder/record.mjs scenarios.json golden
