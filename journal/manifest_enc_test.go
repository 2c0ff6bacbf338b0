package journal

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"math/rand"
	"testing"
	"time"

	"github.com/txedit/txedit/hash"
)

// TestAppendWireIsJSONMarshal: the manifest's hand-made JSON is, byte for
// byte, what json.Marshal writes for it, over manifests with every field
// set and unset and strings of every kind (escapes, HTML characters,
// U+2028, bytes that are not UTF-8), and Decode reads it back.
func TestAppendWireIsJSONMarshal(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	pieces := []string{"a", "dir/", "f.go", " ", `"`, `\`, "<", ">", "&", "\x00", "\x1f", "\x7f", "é", "\u2028", "\u2029", "😀", "\xff", "\xc3", "\ufffd", "\t", "\n"}
	str := func() string {
		var b []byte
		for n := rng.Intn(6); n > 0; n-- {
			b = append(b, pieces[rng.Intn(len(pieces))]...)
		}
		return string(b)
	}
	maybe := func(s string) string {
		if rng.Intn(2) == 0 {
			return ""
		}
		return s
	}
	state := func() *State {
		if rng.Intn(3) == 0 {
			return nil
		}
		return &State{Hash: hash.Of([]byte(str())), Size: rng.Int63n(1 << 40), Mode: fs.FileMode(rng.Uint32()), Uid: rng.Intn(3) * 1000, Gid: rng.Intn(3) * 7}
	}
	names := func() []name {
		switch rng.Intn(3) {
		case 0:
			return nil
		case 1:
			return []name{}
		}
		ns := make([]name, 1+rng.Intn(3))
		for i := range ns {
			ns[i] = name(str())
		}
		return ns
	}
	for i := 0; i < 3000; i++ {
		w := &wireManifest{Version: rng.Intn(4), ID: str(), Time: time.Unix(rng.Int63n(1<<33), rng.Int63n(1e9)).In(time.FixedZone("z", 3600*(rng.Intn(25)-12))),
			Command: str(), Summary: str(), Agent: maybe(str()), Session: maybe(str()), Undoes: maybe(str()), Forced: rng.Intn(2) == 0,
			Mkdirs: names(), Rmdirs: names(), Late: rng.Intn(2) == 0}
		if rng.Intn(2) == 0 {
			w.Time = time.Time{}
		}
		if rng.Intn(5) != 0 {
			w.Ops = make([]*wireOp, rng.Intn(5))
			for k := range w.Ops {
				w.Ops[k] = &wireOp{Path: name(str()), Kind: Kind(str()), Old: state(), New: state(), Staged: name(maybe(str())), Note: maybe(str())}
			}
		}
		if rng.Intn(2) == 0 {
			w.Dirs = []*wireDir{{Path: name(str()), Mode: fs.FileMode(rng.Uint32()), Uid: rng.Intn(2), Gid: rng.Intn(2)}}
		}
		want, err := json.Marshal(w)
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendWire(nil, w)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("appendWire (%v):\n%s\njson.Marshal:\n%s", err, got, want)
		}
	}
	// A time json.Marshal refuses is refused.
	if _, err := appendWire(nil, &wireManifest{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}); err == nil {
		t.Error("a year past 9999 was written")
	}
}
