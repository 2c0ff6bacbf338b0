package journal

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/hash"
)

// A journal trusts only what it can verify (docs/design.md, "Threat
// model"). A checksum shows that a manifest was not torn; it cannot show
// who wrote it, since anyone can compute one. So every manifest since
// version 3 also carries an HMAC-SHA256 under the journal's own key,
// .txedit/key: made once, under the lock, readable only by the owner
// (0600), and never reachable through a tool (no tool reads or writes
// inside a journal, at any depth). Undo, redo and recovery act only on a
// manifest whose MAC verifies, so a transaction planted in the journal by
// anything but txedit's own commit is refused as ErrUntrusted, whatever
// it says.
//
// Manifests written before the key existed (versions 1 and 2) are listed,
// by id and checksum, in .txedit/legacy when the key is made: those, and
// only those, are trusted without a MAC. A key made in a journal that
// already holds version-3 manifests (someone removed the key) lists no
// legacy manifest: nothing that was there can be verified any more.

const (
	keyName    = Dir + "/key"
	legacyName = Dir + "/legacy"
	keyLen     = 32
)

// ErrUntrusted reports a manifest the journal cannot verify as its own:
// a MAC that does not match, or an old-format manifest the journal did
// not hold when its key was made.
var ErrUntrusted = errors.New("journal record cannot be verified as txedit's own")

// trust is what a journal verifies manifests with.
type trust struct {
	key    []byte
	legacy map[string]hash.Sum // id → checksum of a trusted pre-key manifest
	file   fsys.Identity       // the key file it was read from
}

// loadTrust reads the key and the legacy list. A journal without a key
// yet (nothing has committed since txedit began to sign) trusts every
// manifest that decodes: it has nothing to verify with, and the first
// Lock makes the key and lists them.
func (j *Journal) loadTrust() (*trust, error) {
	data, fi, err := fsys.ReadFile(j.fs, keyName, 256)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(data)))
	if err != nil || len(key) != keyLen {
		return nil, fmt.Errorf("%w: %s is not a key (run txedit recover)", ErrCorrupt, keyName)
	}
	t := &trust{key: key, legacy: map[string]hash.Sum{}, file: fsys.IdentityOf(fi)}
	if data, _, err := fsys.ReadFile(j.fs, legacyName, 0); err == nil {
		for line := range strings.SplitSeq(string(data), "\n") {
			id, sum, ok := strings.Cut(line, " ")
			if s, err := hash.ParseSum(sum); ok && err == nil && validID(id) {
				t.legacy[id] = s
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return t, nil
}

// makeKey makes the journal's key, which it has none of (the lock looked),
// listing the old-format manifests it holds as trusted. It runs under the
// lock, before recovery: a transaction an older txedit left pending is
// then recovered as before. The list is written before the key, so a
// crash between the two leaves no key, and the next Lock makes both again;
// the temporary files such a crash leaves are Recover's (journalTemps).
//
// with are other files to write in the same round (a new journal's
// .gitignore).
func (j *Journal) makeKey(ids []string, with []atomicWrite) (*trust, error) {
	var legacy bytes.Buffer
	signed := false
	for _, id := range ids {
		data, err := j.readManifestData(id)
		if err != nil {
			continue
		}
		m, err := decodeManifest(data)
		if err != nil {
			continue
		}
		if m.Version >= 3 {
			signed = true
			break
		}
		fmt.Fprintf(&legacy, "%s %s\n", id, m.sum)
	}
	if signed {
		// The key is gone but signed manifests are here: none of them,
		// and nothing unsigned beside them, can be verified now.
		legacy.Reset()
	}
	sync := j.opts.Sync != SyncNone
	key := make([]byte, keyLen)
	rand.Read(key)
	keyFile := atomicWrite{name: keyName, data: []byte(hex.EncodeToString(key) + "\n"), perm: 0o600}
	files := append(with, atomicWrite{name: legacyName, data: legacy.Bytes(), perm: 0o600})
	if legacy.Len() == 0 {
		// An empty list may become durable after the key: a key without
		// its list trusts no old manifest, which is what the list says.
		files = append(files, keyFile)
	}
	if err := j.writeFilesAtomic(files, nil); err != nil {
		return nil, err
	}
	if legacy.Len() > 0 {
		if err := fsys.WriteFileAtomic(j.fs, keyName, keyFile.data, 0o600, sync); err != nil {
			return nil, err
		}
	}
	return j.loadTrust()
}

// mac is the manifest body's HMAC under key.
func mac(key, body []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write(body)
	return h.Sum(nil)
}

// verify accepts m if the journal can vouch for it (see the top of this
// file). t is nil in a journal that has no key yet.
func (t *trust) verify(m *Manifest) error {
	if t == nil {
		return nil
	}
	if m.Version >= 3 {
		if !hmac.Equal(m.mac, mac(t.key, m.body)) {
			return fmt.Errorf("%w: the manifest of %s is not signed with this journal's key", ErrUntrusted, m.ID)
		}
		return nil
	}
	if sum, ok := t.legacy[m.ID]; !ok || sum != m.sum {
		return fmt.Errorf("%w: %s has an unsigned (version %d) manifest that this journal did not hold when it began to sign", ErrUntrusted, m.ID, m.Version)
	}
	return nil
}
