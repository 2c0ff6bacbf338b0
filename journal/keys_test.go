package journal

import (
	"errors"
	"strings"
	"testing"

	"github.com/txedit/txedit/hash"
)

// TestKeyEntryRoundTrip: an entry of the key store reads back as written,
// and anything else — a line too many, a key of the wrong length, an id
// that is not one, a bad trust line — is a damaged entry, never a partial
// one.
func TestKeyEntryRoundTrip(t *testing.T) {
	e := &keyEntry{id: newJournalID(), dev: 7, ino: 42, path: "/home/u/a b\n", key: testKey,
		trusted: map[string]hash.Sum{testID: st("x").Hash}}
	got, err := decodeEntry(e.encode())
	if err != nil || got.id != e.id || got.dev != 7 || got.ino != 42 || got.path != e.path || string(got.key) != string(e.key) || got.trusted[testID] != e.trusted[testID] {
		t.Fatalf("round trip: %v %+v", err, got)
	}
	good := string(e.encode())
	for name, data := range map[string]string{
		"empty":         "",
		"garbage":       "garbage",
		"short key":     replaceLine(good, "key ", "key abcd"),
		"bad id":        replaceLine(good, "id ", "id ../../etc"),
		"bad trust":     good + "trust nope 1234\n",
		"unknown field": good + "owner root\n",
		"twice":         good + "dev 8\n",
	} {
		if _, err := decodeEntry([]byte(data)); !errors.Is(err, errBadEntry) {
			t.Errorf("%s: %v, want errBadEntry", name, err)
		}
	}
}

func replaceLine(s, prefix, with string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, prefix) {
			lines[i] = with
		}
	}
	return strings.Join(lines, "\n")
}
