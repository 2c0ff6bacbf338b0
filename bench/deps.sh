#!/usr/bin/env bash
# Installs the peers that bench/run.sh compares txedit with, from apt:
# ripgrep (rg), fd-find (fdfind), sd, git, GNU time (peak RSS); cat and dd
# are coreutils. sd is packaged in Debian 12 (bookworm: sd 0.7.6, whose
# literal flag is -s; sd 1.x has -F, and the benchmarks ask which); where
# apt has none, take a release binary from https://github.com/chmln/sd/releases
# (or cargo install sd). Go itself is not installed here.
set -euo pipefail
sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
$sudo apt-get update
$sudo apt-get install -y ripgrep fd-find git time coreutils
$sudo apt-get install -y sd || {
	echo "deps.sh: apt has no sd here: take a release binary from https://github.com/chmln/sd/releases (or cargo install sd)" >&2
	exit 1
}
