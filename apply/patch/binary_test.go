package patch

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txedit/txedit/apply"
	"github.com/txedit/txedit/plan"
)

// binaryChange makes binary files (NUL bytes in them) and changes to them
// of every kind git writes as a binary patch: a small change (git writes a
// delta), a rewrite (a literal), a new file, a deleted one, a rename with a
// change, and a text file made binary.
func binaryChange(r *rand.Rand) (old, nw tree) {
	old, nw = tree{}, tree{}
	blob := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.IntN(256))
			if r.IntN(7) == 0 {
				b[i] = 0
			}
		}
		return b
	}
	for i := range 6 {
		name := fmt.Sprintf("b%d.bin", i)
		data := blob(200 + r.IntN(3000))
		old[name] = data
		switch i {
		case 0: // a few bytes changed: a delta
			c := bytes.Clone(data)
			c[r.IntN(len(c))] ^= 0xff
			nw[name] = append(c, blob(10)...)
		case 1: // rewritten: a literal
			nw[name] = blob(500)
		case 2: // deleted
		case 3: // renamed and changed
			nw["moved/"+name] = append(bytes.Clone(data), 1, 2, 3)
		case 4: // unchanged
			nw[name] = data
		case 5: // a text file becomes binary
			old[name] = []byte(strings.Repeat("text line\n", 20))
			nw[name] = append([]byte("text line\n\x00"), data[:100]...)
		}
	}
	nw["new.bin"] = blob(300)
	return old, nw
}

// TestBinaryAgainstGitApply: git's binary patches (git diff --binary:
// literals and deltas, new, deleted and renamed files) give exactly what git
// apply gives.
func TestBinaryAgainstGitApply(t *testing.T) {
	need(t, "git")
	for _, seed := range peerSeeds() {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			old, nw := binaryChange(rand.New(rand.NewPCG(seed, 85)))
			repo := t.TempDir()
			git := func(args ...string) []byte { return run(t, repo, nil, nil, "git", args...) }
			git("init", "-q")
			writeTree(t, repo, old)
			git("add", "-A")
			git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "old")
			for p := range old {
				os.Remove(filepath.Join(repo, p))
			}
			writeTree(t, repo, nw)
			git("add", "-A")
			diff := git("diff", "--cached", "-M", "--binary")
			if !bytes.Contains(diff, []byte("\ndelta ")) || !bytes.Contains(diff, []byte("\nliteral ")) {
				t.Logf("no delta or no literal in this diff")
			}
			other := t.TempDir()
			writeTree(t, other, old)
			run(t, other, diff, nil, "git", "apply", "-")
			byGit := readTree(t, other)
			diffTrees(t, "git apply vs the new tree", byGit, nw, diff)
			diffTrees(t, "ours vs git apply", applyOurs(t, diff, old), byGit, diff)
		})
	}
}

// A binary patch applies only to the content git named as its old version;
// the new version is already applied; a corrupt one is refused.
func TestBinaryPatchPreconditions(t *testing.T) {
	need(t, "git")
	old, nw := []byte("a\x00b\x00c"+strings.Repeat("x", 100)), []byte("a\x00B\x00c"+strings.Repeat("x", 100))
	repo := t.TempDir()
	writeTree(t, repo, tree{"f.bin": old})
	run(t, repo, nil, nil, "git", "init", "-q")
	run(t, repo, nil, nil, "git", "add", "-A")
	writeTree(t, repo, tree{"f.bin": nw})
	diff := run(t, repo, nil, nil, "git", "diff", "--binary")
	files, err := Parse(FormatDiff, diff)
	if err != nil || len(files) != 1 || files[0].Binary == nil {
		t.Fatalf("parse: %v %+v\n%s", err, files, diff)
	}
	for _, tc := range []struct {
		name    string
		content []byte
		want    []byte
		code    plan.Code
		already bool
	}{
		{"the old version", old, nw, "", false},
		{"the new version: already applied", nw, nw, "", true},
		{"another version: conflict", append(bytes.Clone(old), 'z'), nil, plan.CodeConflict, false},
	} {
		o := files[0].Apply(tc.content)
		switch {
		case tc.code != "" && (len(o.Failed) != 1 || o.Failed[0].Code != tc.code):
			t.Errorf("%s: failures %v, want %s", tc.name, o.Failed, tc.code)
		case tc.code == "" && (!o.OK() || !bytes.Equal(o.Content, tc.want) || o.AlreadyApplied != tc.already):
			t.Errorf("%s: %v %q already=%v", tc.name, o.Failed, o.Content, o.AlreadyApplied)
		}
	}
	// Abbreviated ids (git diff without --binary's full index) are refused,
	// as git apply refuses them.
	short := bytes.Replace(diff, []byte(apply.GitObjectID(old, strings.Repeat("0", 40))), []byte("1234567"), 1)
	if _, err := Parse(FormatDiff, short); err == nil || !strings.Contains(err.Error(), "full index line") {
		t.Errorf("abbreviated index: %v", err)
	}
	// A corrupt base-85 line is refused at parse time.
	i := bytes.Index(diff, []byte("\nliteral ")) + 1
	if i == 0 {
		i = bytes.Index(diff, []byte("\ndelta ")) + 1
	}
	j := i + bytes.IndexByte(diff[i:], '\n') + 3
	bad := append(append(bytes.Clone(diff[:j]), '\x7f'), diff[j+1:]...)
	if _, err := Parse(FormatDiff, bad); err == nil {
		t.Error("a corrupt binary patch parsed")
	}
}
