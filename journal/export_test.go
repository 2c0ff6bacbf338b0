package journal

import "encoding/binary"

// DecodeManifest lets the external tests (journal_test.go) decode a
// manifest as recovery does.
var DecodeManifest = decodeManifest

// ManifestRecord returns the manifest record's data from the start of a
// transaction's file (layout.go); nil if there is none.
func ManifestRecord(data []byte) []byte {
	if len(data) < recHeader || data[4] != recManifest {
		return nil
	}
	n := binary.LittleEndian.Uint64(data[9:])
	if n > uint64(len(data)-recHeader) {
		return nil
	}
	return data[recHeader : recHeader+int(n)]
}
