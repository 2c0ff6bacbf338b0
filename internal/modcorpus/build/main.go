// Command build makes the real-change corpus (package modcorpus): the
// diffs between consecutive releases of the modules modcorpus.Modules
// names, each beside its two trees. testdata/modcorpus/build.sh runs it:
//
//	testdata/modcorpus/build.sh OUTDIR      # -cache DIR (default: modcorpus.DefaultCache)
//
// It needs go and git, and the module proxy (or the cache of an earlier
// run). It prints one line per module and a summary.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/txedit/txedit/internal/modcorpus"
)

func main() {
	cache := flag.String("cache", "", "downloads and unpacked releases (default: $TXEDIT_MODCORPUS_CACHE or the user's cache directory)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: build [-cache DIR] OUTDIR")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	pairs, err := modcorpus.Build(modcorpus.Options{Out: flag.Arg(0), Cache: *cache, Log: os.Stderr})
	if err != nil {
		fmt.Fprintln(os.Stderr, "build:", err)
		os.Exit(1)
	}
	mods := map[string]bool{}
	var files, renames, crlf, binary, modes int
	for _, p := range pairs {
		mods[p.Module] = true
		files, renames, crlf, binary, modes = files+p.Files, renames+p.Renames, crlf+p.CRLF, binary+p.Binary, modes+p.Modes
	}
	fmt.Printf("%d diffs of %d modules in %s (index.tsv): %d file sections, %d renames, %d sections with CRLF lines, %d binary patches, %d mode changes\n",
		len(pairs), len(mods), flag.Arg(0), files, renames, crlf, binary, modes)
}
