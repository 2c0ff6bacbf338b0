package apply

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/txedit/txedit/plan"
)

// TestGitObjectID: the ids git hash-object gives (an empty blob and
// "hello\n", in SHA-1 and SHA-256).
func TestGitObjectID(t *testing.T) {
	for _, tc := range []struct{ data, like, want string }{
		{"", strings.Repeat("0", 40), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"},
		{"hello\n", strings.Repeat("0", 40), "ce013625030ba8dba906f756967f9e9ca394464a"},
		{"", strings.Repeat("0", 64), "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813"},
	} {
		if got := GitObjectID([]byte(tc.data), tc.like); got != tc.want {
			t.Errorf("%q: %s, want %s", tc.data, got, tc.want)
		}
	}
}

// TestApplyDelta: copy and insert instructions, and corrupt deltas refused
// without a panic.
func TestApplyDelta(t *testing.T) {
	src := []byte("0123456789abcdef")
	// src size 16, dst size 9: copy 4 bytes at offset 2, insert "XYZ", copy
	// 2 bytes at offset 14.
	delta := []byte{16, 9, 0x80 | 0x01 | 0x10, 2, 4, 3, 'X', 'Y', 'Z', 0x80 | 0x01 | 0x10, 14, 2}
	out, err := applyDelta(src, delta)
	if err != nil || string(out) != "2345XYZef" {
		t.Fatalf("%q %v", out, err)
	}
	for _, bad := range [][]byte{nil, {16}, {15, 9}, {16, 9, 0}, {16, 9, 0x80 | 0x01 | 0x10, 15, 4}, {16, 9, 5, 'a'}, {16, 1, 2, 'a', 'b'}} {
		if _, err := applyDelta(src, bad); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		d := make([]byte, r.IntN(24))
		for i := range d {
			d[i] = byte(r.IntN(256))
		}
		applyDelta(src, d) // must not panic
	}
}

// TestApplyBinaryIDs: the result must be the version the patch names.
func TestApplyBinaryIDs(t *testing.T) {
	old, nw := []byte("a\x00b"), []byte("a\x00c")
	like := strings.Repeat("0", 40)
	bp := &plan.BinaryPatch{Old: GitObjectID(old, like), New: GitObjectID(nw, like), Data: nw}
	if o := ApplyBinary("f", old, bp); !o.OK() || !bytes.Equal(o.Content, nw) {
		t.Errorf("%v %q", o.Failed, o.Content)
	}
	bp.Data = []byte("other")
	if o := ApplyBinary("f", old, bp); len(o.Failed) != 1 || o.Failed[0].Code != plan.CodeInvalidRequest || !bytes.Equal(o.Content, old) {
		t.Errorf("a literal that is not the new version: %v", o.Failed)
	}
	del := &plan.BinaryPatch{Old: GitObjectID(old, like), New: like}
	if o := ApplyBinary("f", old, del); !o.OK() || len(o.Content) != 0 {
		t.Errorf("a deletion's patch empties the file: %v %q", o.Failed, o.Content)
	}
}
