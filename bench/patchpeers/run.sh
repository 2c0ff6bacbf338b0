#!/usr/bin/env bash
# On demand (needs the npm registry): runs the patch corpus
# (internal/patchcorpus) through txedit and the real programs agents use —
# Codex's native apply_patch (codex --codex-run-as-apply-patch), the
# Responses SDK's applyDiff (@openai/agents-core), git apply and GNU patch —
# and prints the table docs/patch-formats.md carries.
#
#   bench/patchpeers/run.sh            # 40 Go files (~830 cases)
#   FILES=4 bench/patchpeers/run.sh    # a quick look
#
# The npm packages are pinned here and installed into $PEERS_DIR (default
# /tmp/txedit-patchpeers), kept for the next run.
set -euo pipefail
cd "$(dirname "$0")/../.."
CODEX_VERSION=0.169.0
AGENTS_CORE_VERSION=0.20.0
PEERS_DIR=${PEERS_DIR:-/tmp/txedit-patchpeers}
FILES=${FILES:-40}

for tool in git patch node npm; do
	command -v "$tool" >/dev/null || { echo "$tool is needed (apt-get install git patch nodejs npm)"; exit 1; }
done
mkdir -p "$PEERS_DIR"
if [ ! -x "$PEERS_DIR/node_modules/.bin/codex" ] ||
	! grep -q "\"version\": \"$CODEX_VERSION\"" "$PEERS_DIR/node_modules/@openai/codex/package.json" ||
	! grep -q "\"version\": \"$AGENTS_CORE_VERSION\"" "$PEERS_DIR/node_modules/@openai/agents-core/package.json" 2>/dev/null; then
	echo "installing @openai/codex@$CODEX_VERSION @openai/agents-core@$AGENTS_CORE_VERSION into $PEERS_DIR" >&2
	[ -f "$PEERS_DIR/package.json" ] || echo '{"private": true}' > "$PEERS_DIR/package.json"
	npm install --prefix "$PEERS_DIR" --no-audit --no-fund --loglevel=error \
		"@openai/codex@$CODEX_VERSION" "@openai/agents-core@$AGENTS_CORE_VERSION" >&2
fi
cp bench/patchpeers/applydiff.mjs "$PEERS_DIR/applydiff.mjs"
exec go run ./bench/patchpeers -files "$FILES" -peers "$PEERS_DIR" "$@"
