package lsp

import (
	"net/url"
	"path/filepath"
)

// FileURI is the file URI of the absolute path p, percent-encoded as a
// URI requires.
func FileURI(p string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
}
