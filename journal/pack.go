package journal

import (
	"encoding/binary"
	"fmt"
	"io"
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
	n := int64(recHeader + len(data))
	at := p.off.Add(n) - n
	buf := make([]byte, recHeader, n)
	copy(buf, recMagic[:])
	buf[4] = kind
	binary.LittleEndian.PutUint32(buf[5:], uint32(op))
	binary.LittleEndian.PutUint64(buf[9:], uint64(len(data)))
	buf = append(buf, data...)
	_, err := p.f.WriteAt(buf, at)
	return err
}

type packEntry struct {
	off, n int64
}

// packIndex maps (kind, op) to where its data lies.
type packIndex map[[2]int]packEntry

// readPack indexes every complete record of a pack. A record whose header
// is damaged ends the scan: records after it are not trusted.
func readPack(r io.ReaderAt, size int64) (packIndex, error) {
	idx := packIndex{}
	var hdr [recHeader]byte
	for off := int64(0); off+recHeader <= size; {
		if _, err := r.ReadAt(hdr[:], off); err != nil {
			return idx, err
		}
		if [4]byte(hdr[:4]) != recMagic {
			return idx, fmt.Errorf("%w: pack record at %d has a bad header", ErrCorrupt, off)
		}
		n := int64(binary.LittleEndian.Uint64(hdr[9:]))
		if n < 0 || off+recHeader+n > size {
			return idx, fmt.Errorf("%w: pack record at %d is truncated", ErrCorrupt, off)
		}
		idx[[2]int{int(hdr[4]), int(binary.LittleEndian.Uint32(hdr[5:]))}] = packEntry{off + recHeader, n}
		off += recHeader + n
	}
	return idx, nil
}
