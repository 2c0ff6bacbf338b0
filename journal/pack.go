package journal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/txedit/txedit/fsys"
)

// A pack holds a transaction's before-images and per-file diffs in one
// append-only file, so a 1,000-file commit writes one journal file rather
// than a thousand. Workers reserve space with an atomic add and write their
// record in place, in parallel.
//
// Record: "TXR1", kind (1 byte), op index (uint32), length (uint64), data.
// A before-image is verified against the manifest's old hash when read, so
// a damaged record is detected, never restored.
const (
	recBefore = 1
	recDiff   = 2
	recHeader = 4 + 1 + 4 + 8
)

var recMagic = [4]byte{'T', 'X', 'R', '1'}

type packWriter struct {
	f   fsys.File
	off atomic.Int64
}

func (p *packWriter) add(kind byte, op int, data []byte) error {
	return p.addRecords(op, record{kind, data})
}

// record is one record's kind and data, for addRecords.
type record struct {
	kind byte
	data []byte
}

// addRecords writes op's records one after another, in one system call
// where the file can write several buffers at once (fsys.WriterAtv,
// pwritev), else a write each for the header and the data: never a copy
// of the data behind its header. A record is trusted only once the
// barrier after the pack has passed, and its data only when it hashes
// to what the manifest says, so a write torn anywhere is a damaged
// record, never a wrong one.
func (p *packWriter) addRecords(op int, recs ...record) error {
	n := int64(0)
	for _, r := range recs {
		n += int64(recHeader + len(r.data))
	}
	at := p.off.Add(n) - n
	hdrs := make([]byte, recHeader*len(recs))
	bufs := make([][]byte, 0, 2*len(recs))
	for i, r := range recs {
		hdr := hdrs[i*recHeader : (i+1)*recHeader]
		copy(hdr, recMagic[:])
		hdr[4] = r.kind
		binary.LittleEndian.PutUint32(hdr[5:], uint32(op))
		binary.LittleEndian.PutUint64(hdr[9:], uint64(len(r.data)))
		bufs = append(bufs, hdr, r.data)
	}
	if v, ok := p.f.(fsys.WriterAtv); ok {
		_, err := v.WriteAtv(bufs, at)
		return err
	}
	for _, b := range bufs {
		if _, err := p.f.WriteAt(b, at); err != nil {
			return err
		}
		at += int64(len(b))
	}
	return nil
}

type packEntry struct {
	off, n int64
}

// packIndex maps (kind, op) to where its data lies.
type packIndex map[[2]int]packEntry

// readPack indexes every complete record of a pack. A record whose header
// is damaged ends the scan: records after it are not trusted. The bytes
// are hostile: a length is checked against what is left of the file
// without any sum that could overflow, so no record can make a reader
// allocate more than the file holds.
func readPack(r io.ReaderAt, size int64) (packIndex, error) {
	idx := packIndex{}
	for off := int64(0); size-off >= recHeader; {
		kind, op, n, err := recordAt(r, off, size)
		if err != nil {
			return idx, err
		}
		idx[[2]int{int(kind), op}] = packEntry{off + recHeader, n}
		off += recHeader + n
	}
	return idx, nil
}

// recordAt reads the header of the record at off, in a file of size
// bytes that holds at least a header there: its kind, op index and data
// length, the length checked against what is left of the file.
func recordAt(r io.ReaderAt, off, size int64) (kind byte, op int, n int64, err error) {
	var hdr [recHeader]byte
	if _, err := r.ReadAt(hdr[:], off); err != nil {
		return 0, 0, 0, err
	}
	if [4]byte(hdr[:4]) != recMagic {
		return 0, 0, 0, fmt.Errorf("%w: pack record at %d has a bad header", ErrCorrupt, off)
	}
	u := binary.LittleEndian.Uint64(hdr[9:])
	if u > uint64(size-off-recHeader) {
		return 0, 0, 0, fmt.Errorf("%w: pack record at %d is truncated", ErrCorrupt, off)
	}
	return hdr[4], int(binary.LittleEndian.Uint32(hdr[5:])), int64(u), nil
}

// Pack reads the records of one transaction's pack: it is opened and
// indexed once, on first use, however many records are read (undo of a
// 50,000-file transaction reads 50,000 before-images from one index).
// It is not safe for concurrent use. Close releases it.
type Pack struct {
	j    *Journal
	m    *Manifest
	f    fsys.File
	size int64
	idx  packIndex
	err  error // why the pack could not be opened or indexed whole
	once sync.Once
}

// OpenPack returns the pack of m's transaction. Nothing is read until the
// first record is asked for.
func (j *Journal) OpenPack(m *Manifest) *Pack {
	return &Pack{j: j, m: m}
}

// index opens and indexes the pack, once: after that a Pack may be read
// from several goroutines (ReadAt).
func (p *Pack) index() { p.once.Do(p.doIndex) }

func (p *Pack) doIndex() {
	p.f, p.size, p.err = p.j.openPack(p.m.ID)
	if p.err != nil {
		p.f = nil
		return
	}
	p.idx, p.err = readPack(p.f, p.size)
}

// read returns the data of record (kind, i), and whether there is one.
func (p *Pack) read(kind byte, i int) ([]byte, bool, error) {
	p.index()
	e, ok := p.idx[[2]int{int(kind), i}]
	if !ok {
		return nil, false, p.err
	}
	data := make([]byte, e.n)
	if _, err := p.f.ReadAt(data, e.off); err != nil {
		return nil, true, err
	}
	return data, true, nil
}

// Before returns the verified before-image of op i: its bytes must have
// the size and hash the manifest records, or it is ErrCorrupt.
func (p *Pack) Before(i int) ([]byte, error) {
	if i < 0 || i >= len(p.m.Ops) || p.m.Ops[i].Old == nil {
		return nil, fmt.Errorf("op %d has no before-image", i)
	}
	op := p.m.Ops[i]
	p.index()
	if e, ok := p.idx[[2]int{recBefore, i}]; ok && e.n != op.Old.Size {
		return nil, fmt.Errorf("%w: before-image of %s has %d bytes, not %d", ErrCorrupt, op.Path, e.n, op.Old.Size)
	}
	data, ok, err := p.read(recBefore, i)
	switch {
	case !ok && err == nil:
		return nil, errors.New("no before-image in the pack")
	case err != nil:
		return nil, err
	case !matches(data, op.Old):
		return nil, fmt.Errorf("%w: before-image of %s fails its hash", ErrCorrupt, op.Path)
	}
	return data, nil
}

// Diff returns the unified diff recorded for op i ("" if none).
func (p *Pack) Diff(i int) (string, error) {
	data, _, err := p.read(recDiff, i)
	return string(data), err
}

// Close releases the pack.
func (p *Pack) Close() {
	if p.f != nil {
		p.f.Close()
		p.f = nil
	}
}
