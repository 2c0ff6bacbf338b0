package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/txedit/txedit/hash"
)

// Kind is what a transaction does to one path.
type Kind string

// The kinds of op. A move is a create of the new path plus a delete of the
// old one, so every user-visible rename stays inside one directory.
const (
	Modify Kind = "modify"
	Create Kind = "create"
	Delete Kind = "delete"
)

// State describes one version of a file.
type State struct {
	Hash hash.Sum    `json:"hash"`
	Size int64       `json:"size"`
	Mode fs.FileMode `json:"mode"`
	Uid  int         `json:"uid,omitempty"`
	Gid  int         `json:"gid,omitempty"`
}

// Op is what a transaction does to one path.
type Op struct {
	Path string `json:"path"` // root-relative, resolved (no symlinks)
	Kind Kind   `json:"kind"`
	Old  *State `json:"old,omitempty"` // nil: absent before
	New  *State `json:"new,omitempty"` // nil: absent after
	// Staged is the temporary file next to Path that holds the new
	// content until the rename; empty for deletes.
	Staged string `json:"staged,omitempty"`
	// Note says where the change came from for people ("moved to x").
	Note string `json:"note,omitempty"`
}

// Manifest is a transaction's record: written durably before any user file
// is touched, never changed afterwards.
type Manifest struct {
	Version int       `json:"v"`
	ID      string    `json:"id"`
	Time    time.Time `json:"time"`
	Command string    `json:"command"` // apply, undo, …
	Summary string    `json:"summary"`
	// Agent and Session say who made the transaction (SPEC §12).
	Agent   string `json:"agent,omitempty"`
	Session string `json:"session,omitempty"`
	Undoes  string `json:"undoes,omitempty"`
	Forced  bool   `json:"forced,omitempty"`
	Ops     []*Op  `json:"ops"`
	// Mkdirs lists directories the transaction creates, parents first.
	Mkdirs []string `json:"mkdirs,omitempty"`
	// Rmdirs lists directories it removes if they end up empty: those an
	// undone transaction created, and the parents of deleted files.
	Rmdirs []string `json:"rmdirs,omitempty"`
}

const manifestVersion = 1

// ErrCorrupt reports a journal file that fails its checksum or does not
// parse.
var ErrCorrupt = errors.New("journal record is corrupt")

// encodeManifest returns the manifest's bytes: the JSON, then a line
// "sum HEX" with the xxhash64 of the JSON, so a torn or damaged manifest is
// never taken for a valid one.
func encodeManifest(m *Manifest) ([]byte, error) {
	body, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(body)+24)
	out = append(out, body...)
	out = append(out, "\nsum "...)
	out = append(out, hash.Of(body).String()...)
	return append(out, '\n'), nil
}

// DecodeManifest parses and verifies a manifest.
func DecodeManifest(data []byte) (*Manifest, error) {
	i := bytes.LastIndex(data, []byte("\nsum "))
	if i < 0 || len(data) != i+len("\nsum ")+16+1 || data[len(data)-1] != '\n' {
		return nil, fmt.Errorf("%w: manifest has no checksum line", ErrCorrupt)
	}
	body := data[:i]
	want, err := hash.ParseSum(string(data[i+5 : i+5+16]))
	if err != nil || hash.Of(body) != want {
		return nil, fmt.Errorf("%w: manifest checksum mismatch", ErrCorrupt)
	}
	var m Manifest
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if m.Version != manifestVersion {
		return nil, fmt.Errorf("%w: manifest version %d, want %d", ErrCorrupt, m.Version, manifestVersion)
	}
	return &m, nil
}
