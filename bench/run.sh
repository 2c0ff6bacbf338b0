#!/usr/bin/env bash
# Runs txedit's side-by-side benchmarks (bench/README.md) and prints
# their tables, one per file system, then a summary of the goals.
#
#   bench/run.sh all              search, commit and replace, on disk and on tmpfs
#   bench/run.sh search [flags]   grep, glob and batch read vs rg, fd and cat,
#                                 1x and 5x GOROOT/src (bench/searchbench)
#   bench/run.sh commit [flags]   a durable commit of 60 and 1,000 files (one
#                                 str_replace each) vs sd, git apply and plain
#                                 writes, quiet and with 1 GiB of another
#                                 process's dirty data (disk only) (bench/commitbench)
#   bench/run.sh replace [flags]  pattern_replace over GOROOT/src vs rg -l | xargs sd
#                                 and find | xargs sed (bench/replacebench)
#   bench/run.sh memory [flags]   a 50,000-file pattern_replace: time and peak RSS
#                                 of each output mode, and of show, undo (--dry-run,
#                                 --json) and redo of its transaction (on demand:
#                                 not in all)
#   bench/run.sh phases           where a 1,000-file commit's time goes (Go benchmark)
#   bench/run.sh agentloop [flags]  the agent's loop: N single edits of
#                                 one file and one edit in each of N files through
#                                 MCP, txedit mcp against the official filesystem
#                                 server (npm, pinned), a dry run, spawn to
#                                 tools/list, and the edits through the CLI, at
#                                 journal sizes 0, 200 and 1,000; system calls per
#                                 edit (strace) (bench/agentloopbench; not in all)
#   bench/run.sh start [flags]    process start: txedit version, a read and
#                                 the same read as a tool against a Go hello world
#                                 built in the same run, less the cost of a spawn
#                                 (/bin/true) (bench/startbench; not in all)
#   bench/run.sh realdiff [flags] real diffs (consecutive releases of Go modules from
#                                 the module proxy; bench/realdiffbench/corpus.sh builds
#                                 them, once) applied by txedit apply, by git apply and
#                                 by git apply then a sync of what it changed (the
#                                 durable floor), and by the least journaled apply (the
#                                 before-images packed and durable, then that floor), each to
#                                 a fresh export, the 20 with most files;
#                                 -before BIN runs another txedit build beside them
#                                 (bench/realdiffbench; not in all)
#   bench/run.sh fscost [flags]   single file-system calls a commit is made of (create,
#                                 mkdir, link, O_TMPFILE, unlink, fsync, fdatasync, parallel
#                                 fsyncs), on disk and on tmpfs (bench/fscostbench; not in all)
#   bench/run.sh agents [flags]   agents in parallel (docs/design.md, "Concurrency"): 4 agents
#                                 x 25 edits of one shared 400-line Go file over MCP, a server
#                                 process per agent, each its own lines and all one shared
#                                 line, without and with an outside writer; txedit's claude and
#                                 filesystem toolsets against Claude Code's own tools (claude mcp
#                                 serve) and the official filesystem server (npm, pinned); edits
#                                 landed, refusals by code, reads, characters read, lost updates
#                                 (bench/agentsbench; not in all)
#   bench/run.sh soak [flags]     the soak: MCP sessions and CLI processes
#                                 editing with hashes, rename-style and in-place
#                                 outside writers, a kill -9 of an MCP server every
#                                 few seconds then txedit recover; counts lost saves
#                                 and edits, half-applied transactions, refusals by
#                                 code (bench/soakbench; not in all)
#
# Flags go to each run of the program (e.g. -runs 3). Environment:
#   FS=disk,tmpfs    the file systems to run on
#   DISK=/tmp        a directory on disk (corpora are kept there for the next run)
#   TMPFS=/dev/shm   a directory on a tmpfs (its corpora are removed at exit unless KEEP=1)
#   RUNS=            runs of each method (default: each program's own: 11, 7)
#   SCALE=1,5        search corpora, in copies of GOROOT/src
#   COMMIT_FILES="60 1000"  DIRTY=1G  REPLACE_FILES= (a synthetic tree instead
#   of GOROOT/src)  MEMORY_FILES=50000
#   AGENTLOOP_N=200  JOURNALS=0,200,1000  AGENTLOOP_PEERS=/tmp/txedit-agentloop
#   (where npm installs the official server and the MCP SDK, kept for the next
#   run)  AGENTLOOP_INSTALL=0 (install nothing: without the official server
#   txedit runs alone; the SDK may then come from cmd/txedit/testdata/mcpclient)
#   REALDIFF_CORPUS=$DISK/txedit-realdiff-corpus (built there when missing: go mod
#   download, so the module proxy or the module cache is needed once)
#   AGENTS_PEERS=/tmp/txedit-agents (where npm installs Claude Code and the official
#   filesystem server for agents, kept for the next run) AGENTS_INSTALL=0 (install
#   nothing: without them txedit runs alone) AGENTS_OUTSIDE=50 (the outside writer's
#   saves in the runs with one; 0: none)
#   SOAK_SAVES=10000 (the soak stops after this many outside saves on each
#   file system; -duration 5m stops it by time) KEEP=1 (keep the soak's tree)
# Peers: rg, fd (fdfind), git, sd, cat, dd, GNU time (peak RSS); bench/deps.sh installs them.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-help}
[ $# -gt 0 ] && shift

FS=${FS:-disk,tmpfs}
DISK=${DISK:-${TMPDIR:-/tmp}}
TMPFS=${TMPFS:-/dev/shm}
SCALE=${SCALE:-1,5}
COMMIT_FILES=${COMMIT_FILES:-60 1000}
DIRTY=${DIRTY:-1G}
REPLACE_FILES=${REPLACE_FILES:-}
MEMORY_FILES=${MEMORY_FILES:-50000}
AGENTLOOP_N=${AGENTLOOP_N:-200}
JOURNALS=${JOURNALS:-0,200,1000}
AGENTLOOP_PEERS=${AGENTLOOP_PEERS:-/tmp/txedit-agentloop}
AGENTLOOP_INSTALL=${AGENTLOOP_INSTALL:-1}
SOAK_SAVES=${SOAK_SAVES:-10000}
REALDIFF_CORPUS=${REALDIFF_CORPUS:-$DISK/txedit-realdiff-corpus}
AGENTS_PEERS=${AGENTS_PEERS:-/tmp/txedit-agents}
AGENTS_INSTALL=${AGENTS_INSTALL:-1}
AGENTS_OUTSIDE=${AGENTS_OUTSIDE:-50}
# Claude Code, pinned (the claude toolset's release: docs/toolsets.md).
CLAUDE_CODE_VERSION=2.1.332
# The official MCP filesystem server, pinned; the SDK (the client) at the
# version cmd/txedit/testdata/mcpclient pins.
FS_SERVER_VERSION=2026.8.31
MCP_SDK_VERSION=$(sed -n 's/.*"@modelcontextprotocol\/sdk": *"\([^"]*\)".*/\1/p' cmd/txedit/testdata/mcpclient/package.json)
runs=()
[ -n "${RUNS:-}" ] && runs=(-runs "$RUNS")

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2; }

peers() {
	local missing=0
	for p in rg git sd cat dd; do
		command -v "$p" >/dev/null || { echo "run.sh: $p is missing" >&2; missing=1; }
	done
	command -v fdfind >/dev/null || command -v fd >/dev/null || { echo "run.sh: fd (fdfind) is missing" >&2; missing=1; }
	if ! command -v sd >/dev/null; then
		echo "run.sh: sd: bench/deps.sh installs it (apt-get install sd, packaged in Debian 12);" >&2
		echo "        elsewhere a release binary from https://github.com/chmln/sd/releases, or cargo install sd" >&2
	fi
	[ $missing = 0 ] || { echo "run.sh: bench/deps.sh installs the peers (apt-get)" >&2; exit 1; }
	[ -x /usr/bin/time ] || echo "run.sh: no GNU time (/usr/bin/time, apt-get install time): peak RSS from wait4 includes this process's own at the fork" >&2
}

# fsdir NAME prints the scratch base for file system NAME (disk or tmpfs),
# or fails when the directory is not on that kind of file system.
fsdir() {
	local dir kind
	case $1 in
	disk) dir=$DISK ;;
	tmpfs) dir=$TMPFS ;;
	*) echo "run.sh: FS: unknown file system $1 (want disk, tmpfs)" >&2; return 1 ;;
	esac
	kind=$(stat -f -c %T "$dir")
	if [ "$1" = tmpfs ] && [ "$kind" != tmpfs ]; then
		echo "run.sh: TMPFS=$dir is on $kind, not a tmpfs; skipped" >&2
		return 1
	fi
	if [ "$1" = disk ] && [ "$kind" = tmpfs ]; then
		echo "run.sh: DISK=$dir is a tmpfs; skipped" >&2
		return 1
	fi
	echo "$dir"
}

kind() { stat -f -c %T "$1"; }

section() { printf '\n== %s ==\n' "$*"; }

machine() {
	echo "machine: $(nproc) cores, $(uname -r), $(go version | cut -d' ' -f3), load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
	echo "peers: $(rg --version 2>/dev/null | head -1); $( (fdfind --version || fd --version) 2>/dev/null | head -1); $(git --version); sd $(sd --version 2>/dev/null | awk '{print $2}')"
	echo "disk: $DISK; tmpfs: $TMPFS; vm.dirty_background_ratio $(cat /proc/sys/vm/dirty_background_ratio 2>/dev/null), vm.dirty_ratio $(cat /proc/sys/vm/dirty_ratio 2>/dev/null), vm.dirty_expire_centisecs $(cat /proc/sys/vm/dirty_expire_centisecs 2>/dev/null)"
}

bin=$(mktemp -d "${TMPDIR:-/tmp}/txedit-bench-bin.XXXXXX")
goals=$bin/goals.tsv
# The benchmarks make many workspaces, each a journal with a key in the
# user's key store (docs/design.md, "What makes a journal trusted"): they
# get a store of their own, removed with the binaries.
export XDG_STATE_HOME=$bin/state
tmpfs_scratch=()
cleanup() {
	rm -rf "$bin"
	if [ "${KEEP:-0}" != 1 ] && [ ${#tmpfs_scratch[@]} -gt 0 ]; then
		rm -rf "${tmpfs_scratch[@]}"
	fi
}
trap cleanup EXIT
build() {
	go build -o "$bin/" ./cmd/txedit ./cmd/txedit-mcp ./bench/commitbench ./bench/replacebench ./bench/searchbench ./bench/agentloopbench ./bench/soakbench ./bench/startbench ./bench/realdiffbench ./bench/agentsbench
}
scratch() { # scratch BASE NAME sets dir, the program's directory under BASE
	dir=$1/txedit-$2
	if [ "$(kind "$1")" = tmpfs ]; then tmpfs_scratch+=("$dir"); fi
}

search() {
	local fs base list=""
	for fs in ${FS//,/ }; do
		base=$(fsdir "$fs") || continue
		list=${list:+$list,}$fs
		if [ "$fs" = tmpfs ]; then tmpfs_scratch+=("$base/txedit-searchbench"); fi
	done
	[ -n "$list" ] || return 0
	section "search: grep, glob, batch read ($list; a table per file system and corpus)"
	"$bin/searchbench" -fs "$list" -scale "$SCALE" -disk "$DISK/txedit-searchbench" -tmpfs "$TMPFS/txedit-searchbench" \
		-txedit "$bin/txedit" -goals "$goals" "${runs[@]}" "$@"
}

commit() {
	local fs base dir n g
	for fs in ${FS//,/ }; do
		base=$(fsdir "$fs") || continue
		scratch "$base" commitbench
		for n in $COMMIT_FILES; do
			g=(-goals "$goals") # 1,000 files against sd and git apply, fewer against the least journaled commit
			section "commit: $n files, $fs ($base), quiet"
			"$bin/commitbench" -files "$n" -edits 1 -dir "$dir" -txedit "$bin/txedit" "${g[@]}" "${runs[@]}" "$@"
			if [ "$fs" = tmpfs ]; then
				section "commit: $n files, $fs, with $DIRTY of dirty data: skipped (a tmpfs never writes its pages back: no sync has dirty data to flush)"
				continue
			fi
			section "commit: $n files, $fs ($base), with $DIRTY of another process's dirty data"
			"$bin/commitbench" -files "$n" -edits 1 -dir "$dir" -txedit "$bin/txedit" -dirty "$DIRTY" "${g[@]}" "${runs[@]}" "$@"
		done
		rmdir "$dir" 2>/dev/null || true
	done
}

replace() {
	local fs base dir files=()
	[ -n "$REPLACE_FILES" ] && files=(-files "$REPLACE_FILES")
	for fs in ${FS//,/ }; do
		base=$(fsdir "$fs") || continue
		scratch "$base" replacebench
		section "replace: pattern_replace, $fs ($base)"
		"$bin/replacebench" -dir "$dir" -txedit "$bin/txedit" "${files[@]}" -goals "$goals" "${runs[@]}" "$@"
	done
}

# realdiff runs bench/realdiffbench on each file system, on the corpus in
# $REALDIFF_CORPUS (built first when it holds no diff).
realdiff() {
	local fs base dir
	if ! ls "$REALDIFF_CORPUS"/*/patch.diff >/dev/null 2>&1; then
		echo "run.sh: building the real-diffs corpus in $REALDIFF_CORPUS (bench/realdiffbench/corpus.sh)" >&2
		bench/realdiffbench/corpus.sh "$REALDIFF_CORPUS"
	fi
	for fs in ${FS//,/ }; do
		base=$(fsdir "$fs") || continue
		scratch "$base" realdiffbench
		section "realdiff: txedit apply vs git apply, real diffs, $fs ($base)"
		"$bin/realdiffbench" -corpus "$REALDIFF_CORPUS" -dir "$dir" -txedit "$bin/txedit" -goals "$goals" ${RUNS:+-runs "$RUNS"} "$@"
		rm -rf "$dir"
	done
}

memory() {
	local fs base dir
	for fs in ${FS//,/ }; do
		base=$(fsdir "$fs") || continue
		scratch "$base" memorybench
		section "memory: pattern_replace of $MEMORY_FILES files, each output mode, $fs ($base)"
		"$bin/replacebench" -dir "$dir" -txedit "$bin/txedit" -files "$MEMORY_FILES" -modes -history -runs "${RUNS:-3}" -goals "$goals" "$@"
	done
}

# npm_version DIR prints the version of the npm package in DIR, if any.
npm_version() { [ -f "$1/package.json" ] && node -p 'require(process.argv[1]).version' "$1/package.json"; }

# agentloop_peers installs the official filesystem server and the MCP SDK,
# pinned, into $AGENTLOOP_PEERS (unless AGENTLOOP_INSTALL=0), and sets sdk
# and official to their package directories (official empty when missing).
agentloop_peers() {
	command -v node >/dev/null || { echo "run.sh: agentloop needs node (apt-get install nodejs npm)" >&2; exit 1; }
	local mods=$AGENTLOOP_PEERS/node_modules/@modelcontextprotocol
	if [ "$AGENTLOOP_INSTALL" != 0 ] &&
		{ [ "$(npm_version "$mods/server-filesystem")" != "$FS_SERVER_VERSION" ] || [ "$(npm_version "$mods/sdk")" != "$MCP_SDK_VERSION" ]; }; then
		command -v npm >/dev/null || { echo "run.sh: agentloop needs npm to install the official server (apt-get install npm)" >&2; exit 1; }
		echo "installing @modelcontextprotocol/server-filesystem@$FS_SERVER_VERSION @modelcontextprotocol/sdk@$MCP_SDK_VERSION into $AGENTLOOP_PEERS" >&2
		mkdir -p "$AGENTLOOP_PEERS"
		[ -f "$AGENTLOOP_PEERS/package.json" ] || echo '{"private": true}' >"$AGENTLOOP_PEERS/package.json"
		npm install --prefix "$AGENTLOOP_PEERS" --save-exact --no-audit --no-fund --loglevel=error \
			"@modelcontextprotocol/server-filesystem@$FS_SERVER_VERSION" "@modelcontextprotocol/sdk@$MCP_SDK_VERSION" >&2
	fi
	sdk=$mods/sdk
	if [ "$(npm_version "$sdk")" != "$MCP_SDK_VERSION" ]; then
		sdk=$PWD/cmd/txedit/testdata/mcpclient/node_modules/@modelcontextprotocol/sdk
		[ "$(npm_version "$sdk")" = "$MCP_SDK_VERSION" ] || {
			echo "run.sh: the MCP SDK $MCP_SDK_VERSION is installed neither in $AGENTLOOP_PEERS nor in cmd/txedit/testdata/mcpclient (npm ci --prefix cmd/txedit/testdata/mcpclient)" >&2
			exit 1
		}
	fi
	official=$mods/server-filesystem
	if [ "$(npm_version "$official")" != "$FS_SERVER_VERSION" ]; then
		echo "run.sh: @modelcontextprotocol/server-filesystem@$FS_SERVER_VERSION is not installed in $AGENTLOOP_PEERS (AGENTLOOP_INSTALL=0): txedit is measured alone" >&2
		official=
	fi
	command -v strace >/dev/null || echo "run.sh: no strace (apt-get install strace): no system call table" >&2
	echo "machine: $(nproc) cores, $(uname -r), $(go version | cut -d' ' -f3), node $(node --version), load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
	echo "disk: $DISK; tmpfs: $TMPFS"
}

agentloop() {
	local fs base dir
	for fs in ${FS//,/ }; do
		base=$(fsdir "$fs") || continue
		scratch "$base" agentloopbench
		section "agentloop: $fs ($base), $AGENTLOOP_N edits, journals $JOURNALS"
		"$bin/agentloopbench" -dir "$dir" -txedit "$bin/txedit" -sdk "$sdk" -official "$official" \
			-n "$AGENTLOOP_N" -journals "$JOURNALS" -goals "$goals" "${runs[@]}" "$@"
		rm -rf "$dir"
	done
}

# agents_peers installs Claude Code and the official filesystem server,
# pinned, into $AGENTS_PEERS (unless AGENTS_INSTALL=0).
agents_peers() {
	local mods=$AGENTS_PEERS/node_modules
	[ "$AGENTS_INSTALL" != 0 ] || return 0
	if [ "$(npm_version "$mods/@anthropic-ai/claude-code")" != "$CLAUDE_CODE_VERSION" ] ||
		[ "$(npm_version "$mods/@modelcontextprotocol/server-filesystem")" != "$FS_SERVER_VERSION" ]; then
		command -v npm >/dev/null || { echo "run.sh: agents needs npm to install its peers (apt-get install npm), or AGENTS_INSTALL=0" >&2; exit 1; }
		echo "installing @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION @modelcontextprotocol/server-filesystem@$FS_SERVER_VERSION into $AGENTS_PEERS" >&2
		mkdir -p "$AGENTS_PEERS"
		[ -f "$AGENTS_PEERS/package.json" ] || echo '{"private": true}' >"$AGENTS_PEERS/package.json"
		npm install --prefix "$AGENTS_PEERS" --save-exact --no-audit --no-fund --loglevel=error \
			"@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" "@modelcontextprotocol/server-filesystem@$FS_SERVER_VERSION" >&2
	fi
}

# agents runs bench/agentsbench on disk (the first of FS that is one), in
# a scratch directory of its own.
agents() {
	local base dir peers=
	base=$(fsdir disk) || base=$(fsdir tmpfs) || exit 1
	scratch "$base" agentsbench
	[ -d "$AGENTS_PEERS/node_modules" ] && peers=$AGENTS_PEERS
	echo "machine: $(nproc) cores, $(uname -r), $(go version | cut -d' ' -f3), node $(node --version 2>/dev/null || echo none), load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
	section "agents: $base"
	"$bin/agentsbench" -dir "$dir" -txedit "$bin/txedit" -peers "$peers" -outside "$AGENTS_OUTSIDE" "$@"
	rm -rf "$dir"
}

# soak runs bench/soakbench on each file system, on a tree of its own
# (removed after, unless KEEP=1).
soak() {
	local fs base dir
	echo "machine: $(nproc) cores, $(uname -r), $(go version | cut -d' ' -f3), load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
	for fs in ${FS//,/ }; do
		base=$(fsdir "$fs") || continue
		scratch "$base" soakbench
		section "soak: $fs ($base), until $SOAK_SAVES outside saves"
		"$bin/soakbench" -dir "$dir" -txedit "$bin/txedit" -fs "$fs" -saves "$SOAK_SAVES" "$@"
		[ "${KEEP:-0}" = 1 ] || rm -rf "$dir"
	done
}

summary() {
	[ -s "$goals" ] || return 0
	section "summary: the goals (ratios of median wall times; peak RSS the largest of the runs)"
	awk -F'\t' 'NR == FNR { w = length($1) > w ? length($1) : w; next }
		FNR == 1 { printf "%-*s %9s  %s\n", w, "goal", "measured", "" }
		{ printf "%-*s %9s  %s\n", w, $1, $2, $3 }' "$goals" "$goals"
	for note in "$@"; do
		echo "$note"
	done
}

case "$what" in
search | commit | replace | memory | realdiff)
	peers
	machine
	build
	"$what" "$@"
	summary
	;;
all)
	[ $# = 0 ] || { echo "run.sh all takes no flags (RUNS=, FS=, SCALE=... in the environment)" >&2; exit 2; }
	peers
	machine
	build
	search
	commit
	replace
	notes=("50,000-file pattern_replace under 200 MiB peak RSS: not run here (bench/run.sh memory)")
	[[ " $COMMIT_FILES " == *" 1000 "* ]] || notes+=("durable commit of 1,000 files vs sd and git apply: not run (COMMIT_FILES=$COMMIT_FILES)")
	[[ ,$FS, == *,tmpfs,* ]] && notes+=("commits with $DIRTY of dirty data: on disk only (a tmpfs never writes back)")
	summary "${notes[@]}"
	;;
phases)
	go test ./bench/ -run '^$' -bench 'Commit1000x10$' -benchtime 5x "$@"
	;;
agentloop)
	agentloop_peers
	build
	agentloop "$@"
	summary
	;;
soak)
	build
	soak "$@"
	;;
agents)
	agents_peers
	build
	agents "$@"
	;;
fscost)
	machine
	go build -o "$bin/" ./bench/fscostbench # only what it runs
	for fs in ${FS//,/ }; do
		base=$(fsdir "$fs") || continue
		section "file-system calls: $fs ($base)"
		"$bin/fscostbench" -dir "$base" "$@"
	done
	;;
start)
	machine
	go build -o "$bin/" ./cmd/txedit ./bench/startbench # only what it runs
	section "process start"
	"$bin/startbench" -txedit "$bin/txedit" -goals "$goals" ${RUNS:+-runs "$RUNS"} "$@"
	summary
	;;
*)
	usage
	[ "$what" = help ] || [ "$what" = -h ] || exit 2
	;;
esac
