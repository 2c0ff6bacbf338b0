#!/usr/bin/env bash
# Builds the real-diffs corpus of bench/realdiffbench: the diffs between
# consecutive releases of modules served by the Go module proxy, written
# by nobody here.
#
#   bench/realdiffbench/corpus.sh OUTDIR [MODULE@V1..V2 ...]
#
# For each pair it writes OUTDIR/NAME/old/ (the first release's tree),
# OUTDIR/NAME/new/ (the second's) and OUTDIR/NAME/patch.diff (`git diff
# -M` of the two trees, committed in a throwaway repository so that paths
# are relative and renames detected as git finds them). Files either
# release holds as binary (a NUL in the first 8,000 bytes, git's test)
# are left out of both trees: a `git diff` without --binary cannot carry
# them and git apply refuses such a diff. A pair already built is kept.
# The corpus is never committed (it is tens of MiB).
#
# Without pairs it builds the default set: consecutive releases of
# golang.org/x/tools, x/sys, x/net, x/text, google.golang.org/protobuf
# and github.com/spf13/cobra (`go mod download`, once each; the module
# cache keeps them).
set -euo pipefail
out=${1:?usage: corpus.sh OUTDIR [MODULE@V1..V2 ...]}
shift
mkdir -p "$out"
out=$(cd "$out" && pwd)

pairs=("$@")
if [ ${#pairs[@]} = 0 ]; then
	chain() { # chain MODULE V1 V2 ... : the consecutive pairs
		local m=$1 prev=
		shift
		for v in "$@"; do
			[ -n "$prev" ] && pairs+=("$m@$prev..$v")
			prev=$v
		done
	}
	chain golang.org/x/tools v0.45.0 v0.46.0 v0.47.0 v0.48.0 v0.49.0 v0.50.0 v0.51.0 v0.52.0
	chain golang.org/x/sys v0.43.0 v0.44.0 v0.45.0 v0.46.0 v0.47.0 v0.48.0 v0.49.0 v0.50.0
	chain golang.org/x/net v0.55.0 v0.56.0 v0.57.0 v0.58.0 v0.59.0 v0.60.0 v0.61.0 v0.62.0
	chain golang.org/x/text v0.39.0 v0.40.0 v0.41.0 v0.42.0 v0.43.0 v0.44.0
	chain google.golang.org/protobuf v1.36.6 v1.36.7 v1.36.8 v1.36.9 v1.36.10 v1.36.11 v1.36.12
	chain github.com/spf13/cobra v1.7.0 v1.8.0 v1.8.1 v1.9.1 v1.10.0 v1.10.1 v1.10.2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/realdiff-corpus.XXXXXX")
trap 'rm -rf "$work"' EXIT

# unpack MODULE VERSION DIR: the module's zip, its files at DIR's top.
unpack() {
	local zip
	zip=$(go mod download -json "$1@$2" | sed -n 's/^[[:space:]]*"Zip": "\(.*\)",$/\1/p')
	[ -n "$zip" ] || { echo "corpus.sh: go mod download $1@$2 gave no zip" >&2; return 1; }
	rm -rf "$work/unzip" && mkdir -p "$work/unzip" "$3"
	unzip -q "$zip" -d "$work/unzip"
	# The zip's files sit under MODULE@VERSION/.
	cp -a "$work/unzip/$1@$2/." "$3/"
}

# dropbinary DIR LIST: removes from DIR the files named in LIST.
dropbinary() {
	(cd "$1" && while IFS= read -r f; do rm -f -- "$f"; done <"$2")
}

for p in "${pairs[@]}"; do
	mod=${p%@*}
	vs=${p#*@}
	v1=${vs%..*}
	v2=${vs#*..}
	name=$(echo "$mod" | tr '/' '_')@$v1..$v2
	dest=$out/$name
	if [ -s "$dest/patch.diff" ] && [ -d "$dest/old" ] && [ -d "$dest/new" ]; then
		continue
	fi
	echo "corpus.sh: $mod $v1 -> $v2" >&2
	rm -rf "$dest" "$work/a" "$work/b" "$work/repo"
	unpack "$mod" "$v1" "$work/a"
	unpack "$mod" "$v2" "$work/b"
	: >"$work/binary"
	for t in a b; do
		(cd "$work/$t" && find . -type f -print0 | perl -0ne 'chomp; open(my $f, "<", $_) or next; read($f, my $b, 8000); print substr($_, 2), "\n" if $b =~ /\0/') >>"$work/binary"
	done
	sort -u -o "$work/binary" "$work/binary"
	dropbinary "$work/a" "$work/binary"
	dropbinary "$work/b" "$work/binary"
	git init -q "$work/repo"
	g() { git -C "$work/repo" -c user.name=corpus -c user.email=corpus@example.invalid -c core.autocrlf=false "$@"; }
	cp -a "$work/a/." "$work/repo/"
	g add -A -f && g commit -q -m old
	find "$work/repo" -mindepth 1 -maxdepth 1 ! -name .git -exec rm -rf {} +
	cp -a "$work/b/." "$work/repo/"
	# A new index: the copies may reuse the inodes just freed, with the
	# same size and the zip's mtime, and git would take them unchanged.
	rm -f "$work/repo/.git/index"
	g add -A -f && g commit -q -m new
	mkdir -p "$dest"
	g diff -M HEAD~1 HEAD >"$dest/patch.diff.tmp"
	mv "$work/a" "$dest/old"
	mv "$work/b" "$dest/new"
	mv "$dest/patch.diff.tmp" "$dest/patch.diff"
done
echo "corpus.sh: $(ls "$out" | wc -l) diffs in $out" >&2
