package journal

// DecodeManifest lets the external tests (journal_test.go) decode a
// manifest as recovery does.
var DecodeManifest = decodeManifest
