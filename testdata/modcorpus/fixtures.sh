#!/usr/bin/env bash
# Re-records testdata/modcorpus/fixtures: the small real cases the quick
# test run applies (internal/modcorpus TestFixtures), each a directory with
# old/, new/ and git's diff of the two, as build.sh makes for the whole
# corpus. Most are files of real releases, cut out of the corpus build.sh
# makes (CORPUS, default: build it in a temporary directory); the symbolic
# link and mode cases, which module zips cannot hold, are made with git
# here. Each diff is git's own (git diff -M --binary).
#
#   testdata/modcorpus/fixtures.sh [CORPUS]
set -euo pipefail
cd "$(dirname "$0")"
here=$PWD
corpus=${1:-}
if [ -z "$corpus" ]; then
	corpus=$(mktemp -d)
	./build.sh "$corpus"
fi
out=$here/fixtures
rm -rf "$out"
mkdir -p "$out"

gitq() {
	git -c core.autocrlf=false -c core.safecrlf=false -c core.quotePath=true -c diff.noprefix=false \
		-c diff.mnemonicPrefix=false -c user.name=fixtures -c user.email=fixtures@txedit -c init.defaultBranch=main "$@"
}
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null LC_ALL=C

# diffTrees NAME: git's diff of $out/NAME/old and $out/NAME/new into
# $out/NAME/diff (through a scratch repository whose attributes switch
# off every conversion .gitattributes could ask for).
diffTrees() {
	local d=$out/$1 repo
	repo=$(mktemp -d)
	gitq init -q "$repo"
	echo '* !text !eol !crlf !filter !ident !diff !working-tree-encoding' >"$repo/.git/info/attributes"
	cp -a "$d/old/." "$repo/"
	gitq -C "$repo" add -A -f . && gitq -C "$repo" commit -qm old --allow-empty
	find "$repo" -mindepth 1 -maxdepth 1 ! -name .git -exec rm -rf {} +
	cp -a "$d/new/." "$repo/"
	gitq -C "$repo" add -A -f .
	gitq -C "$repo" diff --cached -M --binary --no-color --no-ext-diff --no-textconv >"$d/diff"
	rm -rf "$repo"
}

# cut NAME PAIR OLDPATH[:NEWPATH]...: the named files of a corpus pair.
cut() {
	local name=$1 pair=$2 spec from to
	shift 2
	mkdir -p "$out/$name/old" "$out/$name/new"
	for spec in "$@"; do
		from=${spec%%:*} to=${spec#*:}
		[ -e "$corpus/$pair/old/$from" ] && install -D -m 644 "$corpus/$pair/old/$from" "$out/$name/old/$from"
		[ -e "$corpus/$pair/new/$to" ] && install -D -m 644 "$corpus/$pair/new/$to" "$out/$name/new/$to"
	done
	diffTrees "$name"
	echo "$name: $pair ($*)" >>"$out/SOURCES"
}

echo "# Each fixture: the module release pair it was cut from and its files (old[:new])" >"$out/SOURCES"
cut line-ends-only github.com/microsoft/go-mssqldb/v1.9.2..v1.9.3 namedpipe/namepipe_windows_test.go azuread/azuread_test.go
cut crlf-edits github.com/microsoft/go-mssqldb/v0.17.0..v0.18.0 azuread/configuration.go azuread/configuration_test.go azuread/driver.go
cut crlf-rename github.com/microsoft/go-mssqldb/v0.17.0..v0.18.0 ntlm.go:integratedauth/ntlm/ntlm.go ntlm_test.go:integratedauth/ntlm/ntlm_test.go
cut mixed-line-ends github.com/yuin/goldmark/v1.8.5..v1.8.6 extension/_test/linkify.txt
cut mixed-line-ends-edit github.com/yuin/goldmark/v1.8.6..v1.8.7 extension/_test/linkify.txt
cut crlf-and-bare-cr github.com/BurntSushi/toml/v0.4.1..v1.0.0 internal/toml-test/tests/invalid/control/bare-cr.toml internal/toml-test/tests/valid/string/multiline-escaped-crlf.toml internal/toml-test/tests/valid/newline-crlf.toml
cut binary-literal-and-delta github.com/BurntSushi/toml/v1.3.2..v1.4.0 internal/toml-test/tests/invalid/control/bare-null.toml internal/toml-test/tests/invalid/control/comment-null.toml
cut binary-rename golang.org/x/net/v0.55.0..v0.56.0 html/testdata/webkit/plain-text-unsafe.dat:html/testdata/html5lib-tests/tree-construction/plain-text-unsafe.dat

# Symbolic links, made with git: created (to a file, to a directory, and
# one climbing up and back inside the tree), one retargeted, one deleted,
# one renamed, a file replaced by a link and a link by a file.
d=$out/symlinks
mkdir -p "$d/old/docs" "$d/new/docs"
printf 'readme\n' >"$d/old/docs/README.md"
printf 'index\n' >"$d/old/docs/INDEX.md"
cp "$d/old/docs/README.md" "$d/old/docs/INDEX.md" "$d/new/docs/"
ln -s docs/README.md "$d/old/README"
ln -s docs/INDEX.md "$d/old/gone"
ln -s docs "$d/old/old-name"
printf 'was a file\n' >"$d/old/kind"
ln -s docs/README.md "$d/old/kind2"
ln -s docs/INDEX.md "$d/new/README"
ln -s docs/README.md "$d/new/README.txt"
ln -s docs "$d/new/new-name"
ln -s ../README "$d/new/docs/up"
ln -s docs/INDEX.md "$d/new/kind"
printf 'now a file\n' >"$d/new/kind2"
diffTrees symlinks
echo "symlinks: made with git here (created, retargeted, deleted, renamed links)" >>"$out/SOURCES"

# Modes, made with git: a script made executable and changed, a file made
# not executable.
d=$out/modes
mkdir -p "$d/old" "$d/new"
printf '#!/bin/sh\necho one\n' >"$d/old/run.sh"
printf '#!/bin/sh\necho two\n' >"$d/new/run.sh"
printf 'data\n' >"$d/old/data.txt"
cp "$d/old/data.txt" "$d/new/data.txt"
chmod 644 "$d/old/run.sh" "$d/new/data.txt"
chmod 755 "$d/new/run.sh" "$d/old/data.txt"
diffTrees modes
echo "modes: made with git here (a script made executable and changed, a file made not executable)" >>"$out/SOURCES"

du -sh "$out"
