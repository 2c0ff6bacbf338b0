package apply

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"strconv"
	"strings"

	"github.com/txedit/txedit/plan"
)

// GitObjectID returns the git object id of a blob holding data, as hex, in
// the length of like (64 digits: SHA-256, else SHA-1), as git hash-object
// computes it.
func GitObjectID(data []byte, like string) string {
	var h hash.Hash = sha1.New()
	if len(like) == 64 {
		h = sha256.New()
	}
	h.Write([]byte("blob " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// ApplyBinary applies a git binary patch to content, the file's bytes (nil
// when it does not exist). It applies only to the content git named as
// its old version, and its result must be the version git named as new:
// content that already is the new version is already applied (the id is
// the proof); any other is refused with conflict, naming both ids. A
// corrupt delta is invalid_request. ApplyBinary never panics.
func ApplyBinary(path string, content []byte, bp *plan.BinaryPatch) *HunkOutcome {
	o := &HunkOutcome{Content: content}
	cur := GitObjectID(content, bp.Old)
	switch {
	case cur == bp.New && cur != bp.Old:
		o.AlreadyApplied = true
		return o
	case cur != bp.Old:
		o.Failed = append(o.Failed, plan.Errorf(plan.CodeConflict, path, "the binary patch was made from another version of the file (git object %s; the file is %s): read it again, or make the patch from it", short(bp.Old), short(cur)))
		return o
	}
	out := bp.Data
	if bp.Delta {
		var err error
		if out, err = applyDelta(content, bp.Data); err != nil {
			o.Failed = append(o.Failed, plan.Errorf(plan.CodeInvalidRequest, path, "the binary patch's delta is corrupt: %v", err))
			return o
		}
	}
	if gone := strings.Trim(bp.New, "0") == ""; gone && len(out) > 0 || !gone && GitObjectID(out, bp.New) != bp.New {
		id := GitObjectID(out, bp.New)
		o.Failed = append(o.Failed, plan.Errorf(plan.CodeInvalidRequest, path, "the binary patch makes git object %s where its index line says %s: it is corrupt", short(id), short(bp.New)))
		return o
	}
	o.Content = out
	return o
}

func short(id string) string { return id[:min(len(id), 12)] }

// applyDelta applies a git delta (the format of git's patch-delta.c: the
// source and target sizes as base-128 varints, then copy and insert
// instructions) to src.
func applyDelta(src, delta []byte) ([]byte, error) {
	srcSize, delta, err := deltaSize(delta)
	if err != nil {
		return nil, err
	}
	if srcSize != uint64(len(src)) {
		return nil, fmt.Errorf("it is for %d bytes, the file has %d", srcSize, len(src))
	}
	dstSize, delta, err := deltaSize(delta)
	if err != nil {
		return nil, err
	}
	if dstSize > 1<<31 {
		return nil, errors.New("its result is too large")
	}
	out := make([]byte, 0, dstSize)
	for len(delta) > 0 {
		cmd := delta[0]
		delta = delta[1:]
		switch {
		case cmd&0x80 != 0:
			var off, size uint64
			for i, bit := range []byte{0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40} {
				if cmd&bit == 0 {
					continue
				}
				if len(delta) == 0 {
					return nil, errors.New("a copy instruction is cut short")
				}
				if i < 4 {
					off |= uint64(delta[0]) << (8 * i)
				} else {
					size |= uint64(delta[0]) << (8 * (i - 4))
				}
				delta = delta[1:]
			}
			if size == 0 {
				size = 0x10000
			}
			if off+size > uint64(len(src)) || uint64(len(out))+size > dstSize {
				return nil, errors.New("a copy instruction reaches past its data")
			}
			out = append(out, src[off:off+size]...)
		case cmd != 0:
			if int(cmd) > len(delta) || uint64(len(out))+uint64(cmd) > dstSize {
				return nil, errors.New("an insert instruction reaches past its data")
			}
			out = append(out, delta[:cmd]...)
			delta = delta[cmd:]
		default:
			return nil, errors.New("an instruction 0")
		}
	}
	if uint64(len(out)) != dstSize {
		return nil, fmt.Errorf("it makes %d bytes where it says %d", len(out), dstSize)
	}
	return out, nil
}

// deltaSize reads a delta header's size.
func deltaSize(b []byte) (uint64, []byte, error) {
	var n uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if len(b) == 0 {
			return 0, nil, errors.New("its header is cut short")
		}
		c := b[0]
		b = b[1:]
		n |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return n, b, nil
		}
	}
	return 0, nil, errors.New("its header is malformed")
}
