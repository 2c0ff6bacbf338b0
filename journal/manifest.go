package journal

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/txedit/txedit/fsys"
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

// State describes one version of a file. A symbolic link's state has
// fs.ModeSymlink in Mode, and its target as the content Hash and Size
// are of (IsLink).
type State struct {
	Hash hash.Sum    `json:"hash"`
	Size int64       `json:"size"`
	Mode fs.FileMode `json:"mode"`
	Uid  int         `json:"uid,omitempty"`
	Gid  int         `json:"gid,omitempty"`
}

// IsLink reports whether st is a symbolic link's state.
func (st *State) IsLink() bool { return st != nil && st.Mode&fs.ModeSymlink != 0 }

// Op is what a transaction does to one path.
type Op struct {
	Path string `json:"path"` // root-relative, resolved (no symlinks)
	Kind Kind   `json:"kind"`
	Old  *State `json:"old,omitempty"` // nil: absent before
	New  *State `json:"new,omitempty"` // nil: absent after
	// staged is the temporary file next to Path that holds the new
	// content until the rename (Begin names it); empty for deletes.
	staged string
	// Note says where the change came from for people ("moved to x").
	Note string `json:"note,omitempty"`

	// inexact is set on an op decoded from a version-1 manifest whose
	// path may have lost bytes (see [Manifest.Inexact]).
	inexact bool
}

// DirState is the mode and owner of a directory a transaction may remove,
// as it was before: rollback, recovery and undo create it again with them.
type DirState struct {
	Path string      `json:"path"`
	Mode fs.FileMode `json:"mode"` // permission, setgid and sticky bits
	Uid  int         `json:"uid"`
	Gid  int         `json:"gid"`
}

// Manifest is a transaction's record: written durably before any user file
// is touched, never changed afterwards.
type Manifest struct {
	Version int       `json:"v"`
	ID      string    `json:"id"`
	Time    time.Time `json:"time"`
	Command string    `json:"command"` // apply, undo, …
	Summary string    `json:"summary"`
	// Agent and Session say who made the transaction (docs/agents.md).
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
	// Dirs records the mode and owner of directories: those of Rmdirs as
	// they were when the transaction began (so that they come back as
	// they were), and, given by the caller of Begin, those Mkdirs should
	// be created with (an undo passes the undone transaction's).
	Dirs []DirState `json:"dirs,omitempty"`
	// preparedLate ("prepared_late" in the manifest): the transaction
	// staged its files unnamed and makes its PREPARED mark after the
	// prepare round, unsynced (unnamed.go), so renames may be durable
	// without it: recovery classifies its files by content whether or not
	// the mark is there.
	preparedLate bool

	// What decodeManifest read, for the journal to verify (trust.go):
	// the signed body, its MAC (version 3) and its checksum.
	body []byte
	mac  []byte
	sum  hash.Sum

	// MakeDirs and KeepParents are what the caller of Begin asks for;
	// they are not recorded (Mkdirs and Rmdirs are what it decides).
	// MakeDirs lists directories that must exist once the transaction
	// has committed (a created directory; a moved directory's empty
	// subdirectories): Begin adds those absent, and their absent
	// parents, to Mkdirs. KeepParents keeps the directories that deletes
	// empty (a move of a file or directory, as rename(2) does; an undo,
	// whose Rmdirs already lists what the undone transaction created):
	// Rmdirs is then only what the caller lists.
	MakeDirs    []string `json:"-"`
	KeepParents bool     `json:"-"`
}

// manifestVersion is the version Begin writes. Version 1 wrote names as
// JSON strings, which turns bytes that are not UTF-8 into U+FFFD; version
// 2 writes such a name as {"b64": …}, so every name round-trips exactly;
// version 3 adds a "mac" line, the HMAC of the body under the journal's
// key (trust.go).
const manifestVersion = 3

// ErrCorrupt reports a journal file that fails its checksum or does not
// parse.
var ErrCorrupt = errors.New("journal record is corrupt")

// Inexact lists the names of a version-1 manifest that may not be the
// names on disk: that version wrote bytes that are not UTF-8 as U+FFFD, so
// a name holding U+FFFD might be another file's. Recovery leaves such a
// file alone and undo refuses the transaction, rather than guess.
func (m *Manifest) Inexact() []string {
	var out []string
	for _, op := range m.Ops {
		if op.inexact {
			out = append(out, op.Path)
		}
	}
	return out
}

// dirState returns the recorded state of directory d, if any.
func (m *Manifest) dirState(d string) (DirState, bool) {
	for _, s := range m.Dirs {
		if s.Path == d {
			return s, true
		}
	}
	return DirState{}, false
}

// name is a file name in a manifest: a JSON string when it is UTF-8,
// otherwise {"b64": "<base64 of its bytes>"}, so that every name, which on
// Linux is any bytes, round-trips exactly.
type name string

func (n name) MarshalJSON() ([]byte, error) {
	if utf8.ValidString(string(n)) {
		return json.Marshal(string(n))
	}
	return json.Marshal(struct {
		B64 string `json:"b64"`
	}{base64.StdEncoding.EncodeToString([]byte(n))})
}

func (n *name) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '{' {
		var v struct {
			B64 *string `json:"b64"`
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil {
			return err
		}
		if v.B64 == nil {
			return errors.New("name object without b64")
		}
		b, err := base64.StdEncoding.DecodeString(*v.B64)
		if err != nil {
			return err
		}
		*n = name(b)
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	*n = name(s)
	return nil
}

// The wire form of a manifest: the same fields, names as [name].
type (
	wireManifest struct {
		Version int        `json:"v"`
		ID      string     `json:"id"`
		Time    time.Time  `json:"time"`
		Command string     `json:"command"`
		Summary string     `json:"summary"`
		Agent   string     `json:"agent,omitempty"`
		Session string     `json:"session,omitempty"`
		Undoes  string     `json:"undoes,omitempty"`
		Forced  bool       `json:"forced,omitempty"`
		Ops     []*wireOp  `json:"ops"`
		Mkdirs  []name     `json:"mkdirs,omitempty"`
		Rmdirs  []name     `json:"rmdirs,omitempty"`
		Dirs    []*wireDir `json:"dirs,omitempty"`
		Late    bool       `json:"prepared_late,omitempty"`
	}
	wireOp struct {
		Path   name   `json:"path"`
		Kind   Kind   `json:"kind"`
		Old    *State `json:"old,omitempty"`
		New    *State `json:"new,omitempty"`
		Staged name   `json:"staged,omitempty"`
		Note   string `json:"note,omitempty"`
	}
	wireDir struct {
		Path name        `json:"path"`
		Mode fs.FileMode `json:"mode"`
		Uid  int         `json:"uid"`
		Gid  int         `json:"gid"`
	}
)

func names(ss []string) []name {
	if ss == nil {
		return nil
	}
	out := make([]name, len(ss))
	for i, s := range ss {
		out[i] = name(s)
	}
	return out
}

func strs(ns []name) []string {
	if ns == nil {
		return nil
	}
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = string(n)
	}
	return out
}

// encodeManifest returns the manifest's bytes: the JSON; from version 3
// a line "mac HEX" with its HMAC-SHA256 under key; then a line "sum HEX"
// with the xxhash64 of the JSON, so a torn or damaged manifest is never
// taken for a valid one.
func encodeManifest(m *Manifest, key []byte) ([]byte, error) {
	w := &wireManifest{Version: m.Version, ID: m.ID, Time: m.Time, Command: m.Command, Summary: m.Summary,
		Agent: m.Agent, Session: m.Session, Undoes: m.Undoes, Forced: m.Forced,
		Ops: make([]*wireOp, len(m.Ops)), Mkdirs: names(m.Mkdirs), Rmdirs: names(m.Rmdirs), Late: m.preparedLate}
	for i, op := range m.Ops {
		w.Ops[i] = &wireOp{Path: name(op.Path), Kind: op.Kind, Old: op.Old, New: op.New, Staged: name(op.staged), Note: op.Note}
	}
	for _, d := range m.Dirs {
		w.Dirs = append(w.Dirs, &wireDir{Path: name(d.Path), Mode: d.Mode, Uid: d.Uid, Gid: d.Gid})
	}
	body, err := appendWire(make([]byte, 0, 256+len(m.Ops)*256), w)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(body)+24+70)
	out = append(out, body...)
	if m.Version >= 3 {
		out = append(out, "\nmac "...)
		out = hex.AppendEncode(out, mac(key, body))
	}
	out = append(out, "\nsum "...)
	out = append(out, hash.Of(body).String()...)
	return append(out, '\n'), nil
}

// decodeManifest parses and verifies a manifest. The bytes are treated as
// hostile: a checksum only shows that they were not torn, so every field
// recovery and undo act on is checked too (see validate), and anything
// out of shape is ErrCorrupt, never a panic.
func decodeManifest(data []byte) (*Manifest, error) {
	i := bytes.LastIndex(data, []byte("\nsum "))
	if i < 0 || len(data) != i+len("\nsum ")+16+1 || data[len(data)-1] != '\n' {
		return nil, fmt.Errorf("%w: manifest has no checksum line", ErrCorrupt)
	}
	body := data[:i]
	want, err := hash.ParseSum(string(data[i+5 : i+5+16]))
	var sig []byte
	if k := bytes.LastIndex(body, []byte("\nmac ")); k >= 0 && len(body) == k+len("\nmac ")+2*sha256.Size {
		if sig, err = hex.DecodeString(string(body[k+len("\nmac "):])); err != nil {
			return nil, fmt.Errorf("%w: manifest mac line: %w", ErrCorrupt, err)
		}
		body = body[:k]
	}
	if err != nil || hash.Of(body) != want {
		return nil, fmt.Errorf("%w: manifest checksum mismatch", ErrCorrupt)
	}
	var w wireManifest
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if w.Version < 1 || w.Version > manifestVersion {
		return nil, fmt.Errorf("%w: manifest version %d, want 1 to %d", ErrCorrupt, w.Version, manifestVersion)
	}
	if (w.Version >= 3) != (sig != nil) {
		return nil, fmt.Errorf("%w: a version %d manifest with mac=%v", ErrCorrupt, w.Version, sig != nil)
	}
	m := &Manifest{Version: w.Version, ID: w.ID, Time: w.Time, Command: w.Command, Summary: w.Summary,
		Agent: w.Agent, Session: w.Session, Undoes: w.Undoes, Forced: w.Forced,
		Ops: make([]*Op, len(w.Ops)), Mkdirs: strs(w.Mkdirs), Rmdirs: strs(w.Rmdirs), preparedLate: w.Late,
		body: body, mac: sig, sum: want}
	for i, op := range w.Ops {
		if op == nil {
			return nil, fmt.Errorf("%w: manifest op %d is null", ErrCorrupt, i)
		}
		m.Ops[i] = &Op{Path: string(op.Path), Kind: op.Kind, Old: op.Old, New: op.New, staged: string(op.Staged), Note: op.Note}
		// Version 1 wrote every byte that is not UTF-8 as U+FFFD.
		m.Ops[i].inexact = w.Version == 1 && (strings.ContainsRune(m.Ops[i].Path, utf8.RuneError) || strings.ContainsRune(m.Ops[i].staged, utf8.RuneError))
	}
	for i, d := range w.Dirs {
		if d == nil {
			return nil, fmt.Errorf("%w: manifest dir %d is null", ErrCorrupt, i)
		}
		m.Dirs = append(m.Dirs, DirState{Path: string(d.Path), Mode: d.Mode, Uid: d.Uid, Gid: d.Gid})
	}
	if w.Version == 1 {
		// A directory name that may have lost bytes is never created or
		// removed.
		m.Mkdirs = exactOnly(m.Mkdirs)
		m.Rmdirs = exactOnly(m.Rmdirs)
	}
	if err := validate(m); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return m, nil
}

func exactOnly(ds []string) []string {
	out := ds[:0:0]
	for _, d := range ds {
		if !strings.ContainsRune(d, utf8.RuneError) {
			out = append(out, d)
		}
	}
	return out
}

// validate checks what recovery and undo rely on: ops of a known kind
// with the states that kind has, names that stay inside the workspace and
// outside the journal, staging files that are txedit's own, beside their
// targets, and sane sizes and modes.
func validate(m *Manifest) error {
	if !validID(m.ID) {
		return fmt.Errorf("transaction id %q is malformed", m.ID)
	}
	const modeBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky
	checkState := func(i int, what string, st *State) error {
		if st.Size < 0 || st.Mode&^modeBits != 0 && st.Mode&^(fs.ModeSymlink|fs.ModePerm) != 0 {
			return fmt.Errorf("op %d: %s state has size %d, mode %v", i, what, st.Size, st.Mode)
		}
		return nil
	}
	for i, op := range m.Ops {
		switch {
		case op.Kind == Modify && op.Old != nil && op.New != nil:
		case op.Kind == Create && op.Old == nil && op.New != nil:
		case op.Kind == Delete && op.Old != nil && op.New == nil:
		default:
			return fmt.Errorf("op %d: kind %q with old=%v new=%v", i, op.Kind, op.Old != nil, op.New != nil)
		}
		if err := validName(op.Path); err != nil {
			return fmt.Errorf("op %d: path: %w", i, err)
		}
		if op.staged != "" && (path.Dir(op.staged) != path.Dir(op.Path) || !IsTemp(path.Base(op.staged))) {
			return fmt.Errorf("op %d: staging file %q is not a txedit staging file beside %q", i, op.staged, op.Path)
		}
		if op.New != nil && op.staged == "" {
			return fmt.Errorf("op %d: no staging file", i)
		}
		for what, st := range map[string]*State{"old": op.Old, "new": op.New} {
			if st != nil {
				if err := checkState(i, what, st); err != nil {
					return err
				}
			}
		}
	}
	for _, ds := range [][]string{m.Mkdirs, m.Rmdirs} {
		for _, d := range ds {
			if err := validName(d); err != nil {
				return fmt.Errorf("directory: %w", err)
			}
		}
	}
	for _, d := range m.Dirs {
		if err := validName(d.Path); err != nil {
			return fmt.Errorf("directory: %w", err)
		}
		if d.Mode&^modeBits != 0 {
			return fmt.Errorf("directory %q: mode %v", d.Path, d.Mode)
		}
	}
	return nil
}

// validName accepts a clean root-relative name outside every journal:
// this one's, and a nested workspace's (a component a file system may
// fold to .txedit, at any depth), which no commit of this one writes.
func validName(p string) error {
	switch {
	case p == "" || p == "." || strings.HasPrefix(p, "/") || path.Clean(p) != p:
		return fmt.Errorf("%q is not a clean relative name", p)
	case p == ".." || strings.HasPrefix(p, "../"):
		return fmt.Errorf("%q leads outside the workspace", p)
	case strings.IndexByte(p, 0) >= 0:
		return fmt.Errorf("%q holds a NUL byte", p)
	}
	for c := range strings.SplitSeq(p, "/") {
		if fsys.SameName(c, Dir) {
			return fmt.Errorf("%q is inside a journal", p)
		}
	}
	return nil
}

// validID accepts what newID makes (and nothing that could name another
// file: no separators, no dots).
func validID(id string) bool {
	if len(id) < 8 || len(id) > 64 {
		return false
	}
	for _, c := range []byte(id) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c == '-') {
			return false
		}
	}
	return true
}
