package journal

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"strings"
	"testing"

	"github.com/txedit/txedit/fsys/memfs"
)

// seedManifests are valid manifest bodies of both versions, the shapes the
// structure-aware targets mutate.
func seedManifests() [][]byte {
	v2, _ := encodeManifest(&Manifest{Version: manifestVersion, ID: testID, Ops: []*Op{
		{Path: "a", Kind: Modify, Old: st("a\n"), New: st("A\n"), staged: stagedName(testID, "a", 0)},
		{Path: "d\xff/b", Kind: Create, New: st("b\n"), staged: stagedName(testID, "d\xff/b", 1)},
		{Path: "c/x", Kind: Delete, Old: st("x\n"), staged: stagedName(testID, "c/x", 2)},
	}, Mkdirs: []string{"d\xff"}, Rmdirs: []string{"c"}, Dirs: []DirState{{Path: "c", Mode: 0o700}}}, testKey)
	body := func(data []byte) []byte { return data[:bytes.LastIndex(data, []byte("\nmac "))] }
	return [][]byte{
		body(v2),
		[]byte(`{"v":1,"id":"` + testID + `","ops":[{"path":"bad\ufffd","kind":"delete","old":{"hash":"0000000000000000","size":1}}]}`),
		[]byte(`{"v":2,"id":"` + testID + `","ops":[null]}`),
		[]byte(`{"v":2,"id":"` + testID + `","ops":[{"path":{"b64":"/w=="},"kind":"create","new":{"hash":"0000000000000000","size":1},"staged":".txedit-x-0.tmp"}]}`),
	}
}

// $ go test -fuzz=FuzzDecodeManifest ./journal
// Any bytes, and any JSON body sealed with a valid checksum (the checksum
// proves only that bytes were not torn, so mutations must get past it):
// a manifest either is refused as corrupt or round-trips exactly and
// satisfies what recovery relies on. Never a panic.
func FuzzDecodeManifest(f *testing.F) {
	for _, b := range seedManifests() {
		f.Add(b)
	}
	f.Add([]byte("{}"))
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, data := range [][]byte{body, sealed(string(body))} {
			m, err := decodeManifest(data)
			if err != nil {
				continue
			}
			if err := validate(m); err != nil {
				t.Fatalf("decoded an invalid manifest: %v", err)
			}
			for _, op := range m.Ops {
				if op == nil {
					t.Fatal("nil op decoded")
				}
			}
			again, err := encodeManifest(m, testKey)
			if err != nil {
				t.Fatal(err)
			}
			m2, err := decodeManifest(again)
			if err != nil {
				t.Fatalf("re-encoded manifest does not decode: %v", err)
			}
			if m.Version == manifestVersion && !reflect.DeepEqual(stripNotes(m), stripNotes(m2)) {
				t.Fatalf("round trip changed the manifest:\n%#v\n%#v", m, m2)
			}
		}
	})
}

// stripNotes clears the fields kept for people only (JSON may make them
// lossy), and the version and inexactness a re-encoding changes.
func stripNotes(m *Manifest) *Manifest {
	c := *m
	c.Summary, c.Agent, c.Session, c.Command, c.Undoes = "", "", "", "", ""
	c.Version = 0
	c.Ops = nil
	if len(c.Mkdirs) == 0 {
		c.Mkdirs = nil
	}
	if len(c.Rmdirs) == 0 {
		c.Rmdirs = nil
	}
	if len(c.Dirs) == 0 {
		c.Dirs = nil
	}
	for _, op := range m.Ops {
		o := *op
		o.Note, o.inexact = "", false
		c.Ops = append(c.Ops, &o)
	}
	return &c
}

// $ go test -fuzz=FuzzReadPack ./journal
// Packs built record by record with fuzzed headers (kinds, op indexes,
// lengths up to 2^64-1) and data: the index never points outside the
// file, and reading every before-image and diff returns bytes or an
// error, never a panic, never bytes that fail the manifest's hash.
func FuzzReadPack(f *testing.F) {
	var p recBuf
	p.add(recBefore, 0, []byte("before"))
	p.add(recDiff, 0, []byte("diff"))
	f.Add(p.b, []byte{})
	f.Add([]byte{}, []byte{recBefore, 0, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f})
	f.Fuzz(func(t *testing.T, raw, hdrs []byte) {
		// raw is a pack as it is; hdrs, 13 bytes per record, builds one.
		var built recBuf
		for i := 0; i+13 <= len(hdrs); i += 13 {
			n := binary.LittleEndian.Uint64(hdrs[i+5:])
			data := bytes.Repeat([]byte{hdrs[i]}, int(n%64))
			built.raw(hdrs[i], binary.LittleEndian.Uint32(hdrs[i+1:]), n, data)
		}
		for _, data := range [][]byte{raw, built.b} {
			idx, _ := readPack(bytes.NewReader(data), int64(len(data)))
			for _, e := range idx {
				if e.off < 0 || e.n < 0 || e.off+e.n > int64(len(data)) {
					t.Fatalf("index entry %+v outside %d bytes", e, len(data))
				}
			}
			// In an older txedit's directory, and as the transaction's
			// one file (layout.go).
			for _, legacy := range []bool{true, false} {
				mem := memfs.New(nil)
				if legacy {
					mustMkdirAll(t, mem, txnsDir+"/"+testID)
					mustWrite(t, mem, txnsDir+"/"+testID+"/pack", data)
				} else {
					mustMkdirAll(t, mem, txnsDir)
					mustWrite(t, mem, txnsDir+"/"+testID, data)
				}
				m := &Manifest{ID: testID, Ops: []*Op{
					{Path: "a", Kind: Modify, Old: st("before"), New: st("x")},
					{Path: "b", Kind: Create, New: st("y")}}}
				j := New(mem, nil)
				pk := j.OpenPack(m)
				for i := -1; i <= 2; i++ {
					if b, err := pk.Before(i); err == nil && !matches(b, m.Ops[i].Old) {
						t.Fatalf("before-image %d returned failing its hash", i)
					}
					pk.Diff(i)
				}
				pk.Close()
				j.readManifestData(testID) // never a panic, never a huge allocation
			}
		}
	})
}

// $ go test -fuzz=FuzzRecoverHostile ./journal
// Recovery of a pending transaction whose sealed manifest and pack are
// fuzzed: it never panics, finishes (the next transaction commits), and
// never changes a file no valid op names.
func FuzzRecoverHostile(f *testing.F) {
	var p recBuf
	p.add(recBefore, 0, []byte("a\n"))
	p.add(recBefore, 2, []byte("x\n"))
	for _, b := range seedManifests() {
		f.Add(b, p.b)
	}
	f.Fuzz(func(t *testing.T, body, pack []byte) {
		for _, legacy := range []bool{true, false} {
			recoverHostile(t, body, pack, legacy)
		}
	})
}

// recoverHostile is one case of FuzzRecoverHostile: the transaction in an
// older txedit's directory (legacy), or as its one file (layout.go).
func recoverHostile(t *testing.T, body, pack []byte, legacy bool) {
	mem := memfs.New(map[string]string{"a": "A\n", "c/x": "x\n", "untouched": "u\n"})
	dir := txnsDir + "/" + testID
	if legacy {
		mustMkdirAll(t, mem, dir)
		mustWrite(t, mem, dir+"/manifest", sealed(string(body)))
		mustWrite(t, mem, dir+"/pack", pack)
	} else {
		var r recBuf
		r.add(recManifest, 0, sealed(string(body)))
		mustMkdirAll(t, mem, txnsDir)
		mustWrite(t, mem, dir, append(r.b, pack...))
	}
	mustWrite(t, mem, txnsDir+"/"+testID+".prepared", nil)
	j := New(mem, &Options{Sync: SyncNone})
	// A journal from before txedit signed: the person adopts it, which
	// trusts its unsigned manifests (adopt.go).
	if _, err := j.Adopt(); err != nil {
		t.Fatalf("adopt failed: %v", err)
	}
	m, merr := j.readManifest(testID)
	if _, err := j.Recover(); err != nil {
		t.Fatalf("recovery failed: %v", err)
	}
	named := map[string]bool{}
	if merr == nil {
		for _, op := range m.Ops {
			named[op.Path] = true
		}
	}
	if !named["untouched"] && mem.Files()["untouched"] != "u\n" {
		t.Fatalf("recovery changed a file no op names")
	}
	next := workload{initial: map[string]string{}, change: map[string]*string{"fresh": s("f\n")}}
	if err := runTx(mem, &Options{Sync: SyncNone}, next); err != nil && !strings.Contains(err.Error(), "exist") {
		t.Fatalf("the workspace is wedged: %v", err)
	}
}
