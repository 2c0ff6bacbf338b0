package journal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"strings"
	"testing"

	"github.com/txedit/txedit/fsys/memfs"
	"github.com/txedit/txedit/hash"
)

// sealed appends a valid checksum line to a manifest body: the checksum
// only proves that bytes were not torn, so a crafted or damaged manifest
// carries a good one.
func sealed(body string) []byte {
	return []byte(body + "\nsum " + hash.Of([]byte(body)).String() + "\n")
}

const testID = "20261121-000000-000000-0000"

// TestNamesRoundTripExactly: names are bytes on Linux. A manifest keeps
// every name, UTF-8 or not, exactly: before version 2, json.Marshal wrote
// byte 0xff as U+FFFD, and recovery and undo then acted on another name.
func TestNamesRoundTripExactly(t *testing.T) {
	bad := "dir\xfe/bad\xff.txt"
	m := &Manifest{Version: manifestVersion, ID: testID, Summary: "s\xff", Ops: []*Op{
		{Path: bad, Kind: Modify, Old: st("a"), New: st("b"), staged: stagedName(testID, bad, 0)},
		{Path: "bad\uFFFD.txt", Kind: Delete, Old: st("c"), staged: stagedName(testID, "bad\uFFFD.txt", 1)},
	}, Mkdirs: []string{"new\x80"}, Rmdirs: []string{"dir\xfe"}, Dirs: []DirState{{Path: "dir\xfe", Mode: fs.ModeSetgid | 0o700, Uid: 7, Gid: 8}}}
	data, err := encodeManifest(m, testKey)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "\\ufffd") && !strings.Contains(string(data), "b64") {
		t.Fatalf("names were written lossily: %s", data)
	}
	got, err := decodeManifest(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := (&trust{key: testKey}).verify(got); err != nil {
		t.Fatalf("the manifest's own MAC: %v", err)
	}
	got.body, got.mac, got.sum = nil, nil, 0
	m.Summary = "s\uFFFD" // summaries are for people: lossy is fine there
	if !reflect.DeepEqual(got, m) {
		t.Fatalf("round trip:\n got %#v\nwant %#v", got, m)
	}
	if in := got.Inexact(); len(in) != 0 {
		t.Errorf("a version-2 manifest reported inexact names: %q", in)
	}
}

// TestVersion1ManifestStillDecodes: manifests written before version 2
// decode; a name holding U+FFFD there may have lost bytes, so it is
// reported inexact and recovery does not touch it.
func TestVersion1ManifestStillDecodes(t *testing.T) {
	body := `{"v":1,"id":"` + testID + `","time":"2026-11-21T00:00:00Z","command":"apply","summary":"x","ops":[` +
		`{"path":"bad\ufffd.txt","kind":"modify","old":{"hash":"` + st("old\n").Hash.String() + `","size":4,"mode":420},"new":{"hash":"` + st("new\n").Hash.String() + `","size":4,"mode":420},"staged":".txedit-` + testID + `-0.tmp"},` +
		`{"path":"ok.txt","kind":"modify","old":{"hash":"` + st("old\n").Hash.String() + `","size":4,"mode":420},"new":{"hash":"` + st("new\n").Hash.String() + `","size":4,"mode":420},"staged":".txedit-` + testID + `-1.tmp"}],` +
		`"rmdirs":["gone\ufffd"]}`
	m, err := decodeManifest(sealed(body))
	if err != nil {
		t.Fatal(err)
	}
	if in := m.Inexact(); len(in) != 1 || in[0] != "bad\uFFFD.txt" {
		t.Fatalf("Inexact = %q", in)
	}
	if len(m.Rmdirs) != 0 {
		t.Errorf("an inexact directory name is kept: %q", m.Rmdirs)
	}
	// Recovery of it as a pending transaction: the decoy that really is
	// named bad\uFFFD.txt is left alone; ok.txt, already new, is rolled
	// back from its before-image.
	mem := memfs.New(map[string]string{"bad\uFFFD.txt": "new\n", "ok.txt": "new\n", "bad\xff.txt": "new\n"})
	dir := txnsDir + "/" + testID
	mustMkdirAll(t, mem, dir)
	mustWrite(t, mem, dir+"/manifest", sealed(body))
	var pack recBuf
	pack.add(recBefore, 0, []byte("old\n"))
	pack.add(recBefore, 1, []byte("old\n"))
	mustWrite(t, mem, dir+"/pack", pack.b)
	mustWrite(t, mem, txnsDir+"/"+testID+".prepared", nil)
	j := New(mem, &Options{Sync: SyncNone})
	if rep, err := j.Adopt(); err != nil || len(rep.Trusted) != 1 || len(rep.Unfinished) != 1 {
		t.Fatalf("Adopt: %v %+v", err, rep) // a journal from before txedit signed, adopted by its owner
	}
	reps, err := j.Recover()
	if err != nil {
		t.Fatal(err)
	}
	files := mem.Files()
	if files["bad\uFFFD.txt"] != "new\n" || files["ok.txt"] != "old\n" || files["bad\xff.txt"] != "new\n" {
		t.Errorf("after recovery: %q", files)
	}
	if len(reps) != 1 || len(reps[0].Conflicts) != 1 || reps[0].Conflicts[0].Reason != inexactReason {
		t.Errorf("reports: %+v", reps)
	}
}

// TestHostileManifests: every manifest below has a valid checksum, and
// each is refused as corrupt, not acted on and not a panic.
func TestHostileManifests(t *testing.T) {
	h := st("x").Hash.String()
	op := func(fields string) string {
		return `{"v":2,"id":"` + testID + `","time":"2026-11-21T00:00:00Z","command":"apply","summary":"x","ops":[` + fields + `]}`
	}
	cases := map[string]string{
		"null op":             op(`null`),
		"null dir":            `{"v":2,"id":"` + testID + `","ops":[],"dirs":[null]}`,
		"unknown kind":        op(`{"path":"a","kind":"chmod","old":{"hash":"` + h + `","size":1},"new":{"hash":"` + h + `","size":1},"staged":".txedit-x-0.tmp"}`),
		"modify without old":  op(`{"path":"a","kind":"modify","new":{"hash":"` + h + `","size":1},"staged":".txedit-x-0.tmp"}`),
		"create with old":     op(`{"path":"a","kind":"create","old":{"hash":"` + h + `","size":1},"new":{"hash":"` + h + `","size":1},"staged":".txedit-x-0.tmp"}`),
		"delete with new":     op(`{"path":"a","kind":"delete","old":{"hash":"` + h + `","size":1},"new":{"hash":"` + h + `","size":1}}`),
		"dot-dot path":        op(`{"path":"../a","kind":"delete","old":{"hash":"` + h + `","size":1}}`),
		"absolute path":       op(`{"path":"/etc/passwd","kind":"delete","old":{"hash":"` + h + `","size":1}}`),
		"unclean path":        op(`{"path":"a/../../b","kind":"delete","old":{"hash":"` + h + `","size":1}}`),
		"journal path":        op(`{"path":".txedit/LOCK","kind":"delete","old":{"hash":"` + h + `","size":1}}`),
		"empty path":          op(`{"path":"","kind":"delete","old":{"hash":"` + h + `","size":1}}`),
		"staged is a file":    op(`{"path":"a","kind":"modify","old":{"hash":"` + h + `","size":1},"new":{"hash":"` + h + `","size":1},"staged":"important.txt"}`),
		"staged elsewhere":    op(`{"path":"a","kind":"modify","old":{"hash":"` + h + `","size":1},"new":{"hash":"` + h + `","size":1},"staged":"b/.txedit-x-0.tmp"}`),
		"no staged":           op(`{"path":"a","kind":"create","new":{"hash":"` + h + `","size":1}}`),
		"negative size":       op(`{"path":"a","kind":"delete","old":{"hash":"` + h + `","size":-5}}`),
		"mode with type bits": op(`{"path":"a","kind":"delete","old":{"hash":"` + h + `","size":1,"mode":2147484159}}`),
		"bad b64":             op(`{"path":{"b64":"%%%"},"kind":"delete","old":{"hash":"` + h + `","size":1}}`),
		"b64 object extra":    op(`{"path":{"b64":"YQ==","x":1},"kind":"delete","old":{"hash":"` + h + `","size":1}}`),
		"b64 missing":         op(`{"path":{},"kind":"delete","old":{"hash":"` + h + `","size":1}}`),
		"id with slash":       `{"v":2,"id":"../../x","ops":[]}`,
		"version 3":           `{"v":3,"id":"` + testID + `","ops":[]}`,
		"mkdir outside":       `{"v":2,"id":"` + testID + `","ops":[],"mkdirs":["../x"]}`,
		"rmdir journal":       `{"v":2,"id":"` + testID + `","ops":[],"rmdirs":[".txedit"]}`,
		"dir mode type bits":  `{"v":2,"id":"` + testID + `","ops":[],"dirs":[{"path":"a","mode":2147484159}]}`,
	}
	for name, body := range cases {
		if _, err := decodeManifest(sealed(body)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
}

// TestHostileManifestDoesNotWedge: a pending transaction whose manifest
// has a valid checksum and a null op is reported damaged by recovery; log
// lists it; the next transaction commits. Before, recover, every apply and
// even log panicked on it.
func TestHostileManifestDoesNotWedge(t *testing.T) {
	mem := memfs.New(map[string]string{"a": "a\n"})
	dir := txnsDir + "/" + testID
	mustMkdirAll(t, mem, dir)
	mustWrite(t, mem, dir+"/manifest", sealed(`{"v":1,"id":"`+testID+`","ops":[null]}`))
	mustWrite(t, mem, txnsDir+"/"+testID+".prepared", nil)
	j := New(mem, &Options{Sync: SyncNone})
	if rep, err := j.Adopt(); err != nil || len(rep.Untrusted) != 1 {
		t.Fatalf("Adopt: %v %+v", err, rep)
	}
	ents, err := j.List()
	if err != nil || len(ents) != 1 || !errors.Is(ents[0].Err, ErrCorrupt) {
		t.Fatalf("List: %v %+v", err, ents)
	}
	reps, err := j.Recover()
	if err != nil || len(reps) != 1 || reps[0].Damaged == "" {
		t.Fatalf("Recover: %v %+v", err, reps)
	}
	next := workload{initial: map[string]string{"a": "a\n"}, change: map[string]*string{"a": s("b\n")}}
	if err := runTx(mem, &Options{Sync: SyncNone}, next); err != nil || mem.Files()["a"] != "b\n" {
		t.Fatalf("next transaction: %v", err)
	}
}

// TestManifestOfAnotherTransaction: a manifest copied into another
// transaction's directory is not acted on (its marks are another's).
func TestManifestOfAnotherTransaction(t *testing.T) {
	mem := memfs.New(nil)
	other := "20261121-000000-000000-0001"
	mustMkdirAll(t, mem, txnsDir+"/"+other)
	mustWrite(t, mem, txnsDir+"/"+other+"/manifest", sealed(`{"v":2,"id":"`+testID+`","ops":[]}`))
	if _, err := New(mem, nil).readManifest(other); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("readManifest = %v, want ErrCorrupt", err)
	}
}

// TestHostilePackLengths: a record length near 2^63 overflowed the bounds
// check (off+header+n wrapped negative) and made the reader allocate it:
// a makeslice panic in undo, and in recover and every apply while the
// transaction was pending. Every length is now checked against what is
// left of the file.
func TestHostilePackLengths(t *testing.T) {
	for _, n := range []uint64{1<<63 - 1, 1 << 63, 1<<64 - 1, 1<<63 - recHeader, 1 << 62, 5, 4} {
		var p recBuf
		p.raw(recBefore, 0, n, []byte("old\n"))
		idx, err := readPack(p.reader(), int64(len(p.b)))
		for _, e := range idx {
			if e.off < 0 || e.n < 0 || e.off+e.n > int64(len(p.b)) {
				t.Errorf("length %#x: entry %+v outside the %d-byte pack", n, e, len(p.b))
			}
		}
		if n != 4 && !errors.Is(err, ErrCorrupt) {
			t.Errorf("length %#x: err = %v, want ErrCorrupt", n, err)
		}
		// Recovery of a pending transaction with that pack.
		// b is still old: the transaction died among its renames, and is
		// rolled back (a transaction whose files are all new would be
		// finished forward, without the pack).
		mem := memfs.New(map[string]string{"a": "new\n", "b": "b\n"})
		dir := txnsDir + "/" + testID
		mustMkdirAll(t, mem, dir)
		m := &Manifest{Version: manifestVersion, ID: testID, Ops: []*Op{{Path: "a", Kind: Modify, Old: st("old\n"), New: st("new\n"), staged: stagedName(testID, "a", 0)},
			{Path: "b", Kind: Modify, Old: st("b\n"), New: st("B\n"), staged: stagedName(testID, "b", 1)}}}
		data, _ := encodeManifest(m, testKey)
		signWith(t, mem, testKey)
		mustWrite(t, mem, dir+"/manifest", data)
		mustWrite(t, mem, dir+"/pack", p.b)
		mustWrite(t, mem, txnsDir+"/"+testID+".prepared", nil)
		j := New(mem, &Options{Sync: SyncNone})
		if _, err := j.Before(m, 0); err == nil && n != 4 {
			t.Errorf("length %#x: Before succeeded", n)
		}
		if _, err := j.Recover(); err != nil {
			t.Errorf("length %#x: Recover: %v", n, err)
		}
		want := "old\n"
		if n != 4 {
			want = "new\n" // the before-image is lost: reported, left new
		}
		if got := mem.Files()["a"]; got != want {
			t.Errorf("length %#x: a = %q after recovery, want %q", n, got, want)
		}
	}
}

// recBuf builds packs record by record, with any header.
type recBuf struct{ b []byte }

func (r *recBuf) add(kind byte, op int, data []byte) {
	r.raw(kind, uint32(op), uint64(len(data)), data)
}

func (r *recBuf) raw(kind byte, op uint32, n uint64, data []byte) {
	var hdr [recHeader]byte
	copy(hdr[:], recMagic[:])
	hdr[4] = kind
	binary.LittleEndian.PutUint32(hdr[5:], op)
	binary.LittleEndian.PutUint64(hdr[9:], n)
	r.b = append(append(r.b, hdr[:]...), data...)
}

func (r *recBuf) reader() *strings.Reader { return strings.NewReader(string(r.b)) }

func mustMkdirAll(t testing.TB, mem *memfs.FS, dir string) {
	t.Helper()
	p := ""
	for _, c := range strings.Split(dir, "/") {
		p += c
		if err := mem.Mkdir(p, 0o700); err != nil && !strings.Contains(err.Error(), "exist") {
			t.Fatal(err)
		}
		p += "/"
	}
}

func mustWrite(t testing.TB, mem *memfs.FS, name string, data []byte) {
	t.Helper()
	mem.Remove(name)
	f, err := mem.Create(name, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(data)
	f.Close()
}

// TestGCKeepsAContiguousHistory: retention keeps a newest stretch of
// history. A transaction too big for KeepBytes is removed with everything
// older (keeping older ones would let undo skip it and undo something
// older, leaving its changes in place); the newest is kept whatever its
// size; the newest removed id is the horizon.
func TestGCKeepsAContiguousHistory(t *testing.T) {
	mem := memfs.New(map[string]string{"f": "0"})
	opts := &Options{Sync: SyncNone, Keep: 10, KeepBytes: 3000}
	cur := "0"
	var ids []string
	for i, size := range []int{10, 10, 3000, 10, 10, 10} {
		next := fmt.Sprintf("%d%s", i, strings.Repeat("x", size))
		if err := runTx(mem, opts, workload{initial: map[string]string{"f": cur}, change: map[string]*string{"f": s(next)}}); err != nil {
			t.Fatal(err)
		}
		cur = next
		ents, _ := New(mem, opts).List()
		ids = append(ids, ents[len(ents)-1].ID)
	}
	j := New(mem, opts)
	l, err := j.Lock()
	if err != nil {
		t.Fatal(err)
	}
	removed, err := l.GC()
	l.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	ents, _ := j.List()
	var left []string
	for _, e := range ents {
		left = append(left, e.ID)
	}
	// Each pack holds the content before: the fourth transaction's is
	// 3,000 bytes and does not fit after the two newer ones; it and all
	// older go, though the older ones are small.
	if len(left) != 2 || left[0] != ids[4] || left[1] != ids[5] {
		t.Fatalf("left %v, removed %v", left, removed)
	}
	for _, id := range left {
		for _, r := range removed {
			if r > id {
				t.Fatalf("removed %s but kept the older %s: history has a hole", r, id)
			}
		}
	}
	if h := j.Horizon(); h == "" || h != removed[0] {
		t.Errorf("horizon %q, removed %v", h, removed)
	}
	t.Logf("kept %d, removed %d, horizon %s", len(left), len(removed), j.Horizon())
}

// testKey signs the manifests tests write by hand.
var testKey = bytes.Repeat([]byte{7}, keyLen)

// signWith gives the journal on mem the key key in the process's key
// store (MemoryKeys, every test journal's), as its first Lock would make
// one.
func signWith(t testing.TB, mem *memfs.FS, key []byte) {
	t.Helper()
	mustMkdirAll(t, mem, txnsDir)
	e := &keyEntry{id: newJournalID(), key: key, trusted: map[string]hash.Sum{}}
	if err := MemoryKeys().put(e); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, mem, idName, []byte(e.id+"\n"))
}
