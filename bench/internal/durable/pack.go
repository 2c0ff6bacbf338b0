package durable

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/txedit/txedit/internal/par"
)

// An Image is one path's before-image in a pack: its kind ('f' a regular
// file, 'l' a symbolic link, '-' absent: rolling back removes it) and its
// content (a link's target).
type Image struct {
	Name string
	Kind byte
	Data []byte
}

// Pack is the journal round of the least journaled change (bench/README.md,
// "the least journaled apply"): what docs/journal.md, "The commit, and what
// it syncs" (prepare), needs durable before the first file is replaced,
// and nothing more. It reads the before-image of every name under root
// (32 in flight, as any editor must read them), writes them with their
// names into one new file, pack, and waits once for that file's
// fdatasync and, in flight with it, the fsync of its directory (the
// pack's new name; txedit makes its transaction file's data and txns/
// durable in the same round). A name that does not exist is recorded as
// absent, so that rolling back removes what the change created. With
// more than 8 names the Ps are widened, as Sync and txedit's journal do
// (Widen).
func Pack(root string, names []string, pack string) error {
	defer Widen(root, len(names))()
	imgs := make([]Image, len(names))
	err := par.Do(context.Background(), len(names), InFlight, func(i int) error {
		p := filepath.Join(root, names[i])
		imgs[i].Name = names[i]
		st, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			imgs[i].Kind = '-'
			return nil
		case err != nil:
			return err
		case st.Mode()&fs.ModeSymlink != 0:
			t, err := os.Readlink(p)
			imgs[i].Kind, imgs[i].Data = 'l', []byte(t)
			return err
		}
		imgs[i].Kind = 'f'
		imgs[i].Data, err = os.ReadFile(p)
		return err
	})
	if err != nil {
		return err
	}
	// The header: each name, NUL, its kind and length, NUL; an empty name
	// ends it; then the contents, in the header's order, each written
	// from the buffer it was read into (one copy of them all into a
	// buffer of their size cost more than the writes: a 2 MB pack of 58
	// files, on tmpfs).
	var b []byte
	for _, im := range imgs {
		b = append(append(append(append(b, im.Name...), 0, im.Kind), strconv.Itoa(len(im.Data))...), 0)
	}
	b = append(b, 0)
	f, err := os.OpenFile(pack, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	for i := 0; err == nil && i < len(imgs); i++ {
		_, err = f.Write(imgs[i].Data)
	}
	if err == nil {
		err = WithDir(f, func() error { return syncOne(filepath.Dir(pack), (*os.File).Sync) })
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// ReadPack reads the before-images Pack wrote, in its order.
func ReadPack(pack string) ([]Image, error) {
	data, err := os.ReadFile(pack)
	if err != nil {
		return nil, err
	}
	var imgs []Image
	var sizes []int
	rest := data
	next := func() (string, bool) {
		i := bytes.IndexByte(rest, 0)
		if i < 0 {
			return "", false
		}
		s := string(rest[:i])
		rest = rest[i+1:]
		return s, true
	}
	for {
		name, ok := next()
		if !ok {
			return nil, fmt.Errorf("%s: the header is cut short", pack)
		}
		if name == "" {
			break
		}
		kl, ok := next()
		if !ok || kl == "" {
			return nil, fmt.Errorf("%s: %q has no kind and length", pack, name)
		}
		n, err := strconv.Atoi(kl[1:])
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%s: %q: bad length %q", pack, name, kl[1:])
		}
		imgs = append(imgs, Image{Name: name, Kind: kl[0]})
		sizes = append(sizes, n)
	}
	for i, n := range sizes {
		if n > len(rest) {
			return nil, fmt.Errorf("%s: %q is cut short", pack, imgs[i].Name)
		}
		imgs[i].Data, rest = rest[:n:n], rest[n:]
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("%s: %d bytes after the last image", pack, len(rest))
	}
	return imgs, nil
}

// WithDir fdatasyncs f with syncDir (the fsync of the directory that
// names it) in flight: one device wait for a new file and its name.
func WithDir(f *os.File, syncDir func() error) error {
	var derr error
	var wg sync.WaitGroup
	wg.Go(func() { derr = syncDir() })
	err := DataSync(f)
	wg.Wait()
	if err == nil {
		err = derr
	}
	return err
}
