package journal

import (
	"github.com/txedit/txedit/fsys"
)

// distinctTargets refuses a transaction two of whose ops act on one file
// under two names: through a bind mount, a/f.txt and b/f.txt are one
// inode, and renaming a staged file over each would silently lose the
// first edit. The engine refuses such requests when it plans them; this
// is the journal's own check, for every caller (pattern_replace walks
// included), on the identities the files were staged against.
func (tx *Tx) distinctTargets() error {
	type key struct{ dev, ino uint64 }
	seen := make(map[key]int, len(tx.m.Ops))
	for i, op := range tx.m.Ops {
		if !tx.identSet[i] || tx.idents[i].Ino == 0 {
			continue
		}
		k := key{tx.idents[i].Dev, tx.idents[i].Ino}
		if j, ok := seen[k]; ok {
			return &fsys.ConflictError{Op: "commit", Path: op.Path,
				Msg: "is the same file as " + tx.m.Ops[j].Path + " (another path to it: a bind mount?); a transaction changes a file once"}
		}
		seen[k] = i
	}
	return nil
}
