// Package modcorpus builds the real-change corpus: the diffs between
// consecutive releases of modules served by the Go module proxy (cobra,
// golang.org/x/tools, x/net, …), each beside the two trees it goes between,
// made by git itself (git diff -M --binary of the two releases' trees).
// The tests apply every diff with txedit and with git apply to a fresh copy
// of the old tree and compare both with the new one (docs/patch-formats.md,
// "Real changes"); the benchmarks time the same diffs.
//
// Build downloads the modules through the go command (so GOPROXY,
// GOFLAGS and the checksum database apply, and downloads are cached),
// unpacks each release once, and writes one directory per pair:
//
//	OUT/<module path>/<old version>..<new version>/old/   the old release's tree
//	OUT/<module path>/<old version>..<new version>/new/   the new release's tree
//	OUT/<module path>/<old version>..<new version>/diff   git's diff of the two
//	OUT/index.tsv                                         one line per pair (Pair)
//
// The trees are hard links to the unpacked releases in the cache: read them,
// or copy them before writing. Nothing of it is committed to the
// repository; testdata/modcorpus/build.sh is the command that makes it.
package modcorpus

import "strconv"

// Module is a module and the releases of it the corpus uses, in order.
type Module struct {
	Path     string
	Versions []string
	// Why it is in the corpus: what its changes hold.
	Why string
}

// Modules are the corpus's modules, their releases pinned, so that the
// corpus is the same wherever and whenever it is built. Between them the
// diffs hold renames (cobra's docs moved to site/content, x/tools' and
// x/net's packages moved), CRLF and mixed-line-end files (go-mssqldb,
// toml, goldmark, goquery), files added and deleted, and large generated
// changes (x/text's Unicode tables, x/net's public suffix list). Module
// zips record no file modes (every file is 0644 there), so mode changes
// come from the committed fixtures (testdata/modcorpus/fixtures).
var Modules = []Module{
	{Path: "github.com/spf13/cobra", Why: "renames (docs moved to site/content), a CLI library's history",
		Versions: []string{"v0.0.1", "v0.0.2", "v0.0.3", "v0.0.5", "v0.0.6", "v1.0.0", "v1.1.1", "v1.1.3", "v1.2.1", "v1.3.0", "v1.4.0", "v1.5.0", "v1.6.0", "v1.6.1", "v1.7.0", "v1.8.0", "v1.8.1", "v1.9.1", "v1.10.0", "v1.10.1", "v1.10.2"}},
	{Path: "golang.org/x/tools", Why: "a large tree (1,600 files): renames, moved packages, deleted files",
		Versions: append(append(semverRun("v0.", 20, 24), "v0.24.1", "v0.25.0", "v0.25.1"), semverRun("v0.", 26, 52)...)},
	{Path: "golang.org/x/net", Why: "every release: generated tables, renames",
		Versions: semverRun("v0.", 1, 62)},
	{Path: "golang.org/x/text", Why: "large generated changes (Unicode tables)",
		Versions: semverRun("v0.", 30, 44)},
	{Path: "golang.org/x/mod", Why: "small, many releases",
		Versions: semverRun("v0.", 10, 43)},
	{Path: "github.com/microsoft/go-mssqldb", Why: "CRLF files",
		Versions: []string{"v0.17.0", "v0.18.0", "v0.19.0", "v0.21.0", "v1.0.0", "v1.1.0", "v1.6.0", "v1.7.1", "v1.7.2", "v1.8.0", "v1.8.2", "v1.9.0", "v1.9.1", "v1.9.2", "v1.9.3", "v1.9.4", "v1.9.5", "v1.9.6", "v1.9.7", "v1.9.8", "v1.10.0", "v1.11.0", "v1.11.1", "v1.11.2"}},
	{Path: "github.com/yuin/goldmark", Why: "a file with mixed line ends; Markdown test cases",
		Versions: []string{"v1.1.6", "v1.1.22", "v1.1.25", "v1.1.27", "v1.1.28", "v1.1.30", "v1.1.32", "v1.2.1", "v1.3.5", "v1.3.7", "v1.4.0", "v1.4.1", "v1.4.5", "v1.4.8", "v1.4.13", "v1.4.15", "v1.5.4", "v1.5.5", "v1.5.6", "v1.6.0", "v1.7.0", "v1.7.1", "v1.7.2", "v1.7.4", "v1.7.5", "v1.7.6", "v1.7.7", "v1.7.8", "v1.7.10", "v1.7.11", "v1.7.12", "v1.7.13", "v1.7.14", "v1.7.15", "v1.7.16", "v1.7.17", "v1.8.0", "v1.8.1", "v1.8.2", "v1.8.3", "v1.8.4", "v1.8.5", "v1.8.6", "v1.8.7"}},
	{Path: "github.com/BurntSushi/toml", Why: "CRLF test files (toml-test), a thousand small files",
		Versions: []string{"v0.3.1", "v0.4.1", "v1.0.0", "v1.1.0", "v1.2.0", "v1.2.1", "v1.3.0", "v1.3.2", "v1.4.0", "v1.5.0", "v1.6.0"}},
	{Path: "github.com/PuerkitoBio/goquery", Why: "a file with mixed line ends",
		Versions: []string{"v1.4.1", "v1.5.0", "v1.5.1", "v1.6.0", "v1.6.1", "v1.7.1", "v1.8.0", "v1.8.1", "v1.9.1", "v1.9.2", "v1.9.3", "v1.10.0", "v1.10.1", "v1.10.2", "v1.10.3", "v1.11.0", "v1.12.0", "v1.13.0", "v1.14.0"}},
}

// semverRun returns prefix+N+".0" for N from lo to hi.
func semverRun(prefix string, lo, hi int) []string {
	var out []string
	for n := lo; n <= hi; n++ {
		out = append(out, prefix+strconv.Itoa(n)+".0")
	}
	return out
}
