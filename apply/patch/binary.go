package patch

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/txedit/txedit/apply"
	"github.com/txedit/txedit/plan"
)

// base85 is git's base-85 alphabet (base85.c).
const base85 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~"

// maxBinary bounds what one binary patch may inflate to.
const maxBinary = 1 << 30

// binaryPatch reads the "GIT binary patch" at d.i: its forward hunk
// ("literal N" or "delta N", base-85 lines, an empty line) and the reverse
// hunk git writes after it (read and left: txedit applies forward only).
// ids is the section's "index OLD..NEW" line; git writes it in full with
// --binary, and a binary patch applies only to the content OLD names.
func (d *diffReader) binaryPatch(path, ids string) (*plan.BinaryPatch, error) {
	at := d.i + 1
	oldID, newID, ok := strings.Cut(strings.Fields(ids + " ")[0], "..")
	if !ok || !fullID(oldID) || !fullID(newID) || len(oldID) != len(newID) {
		return nil, errAt(at, path, "a binary patch needs the full index line (git diff --binary writes it; 'index %s' is abbreviated or missing), as git apply does", ids)
	}
	d.i++
	bp := &plan.BinaryPatch{Old: oldID, New: newID}
	data, delta, err := d.binaryHunk(path)
	if err != nil {
		return nil, err
	}
	bp.Data, bp.Delta = data, delta
	if d.i < len(d.lines) && (strings.HasPrefix(d.text(d.i), "literal ") || strings.HasPrefix(d.text(d.i), "delta ")) {
		if _, _, err := d.binaryHunk(path); err != nil {
			return nil, err
		}
	}
	if !delta && !zeroID(newID) && apply.GitObjectID(data, newID) != newID {
		return nil, errAt(at, path, "the binary patch's content is not git object %s: it is corrupt", newID[:12])
	}
	return bp, nil
}

// zeroID reports whether id is git's id of no file (all zeros).
func zeroID(id string) bool { return strings.Trim(id, "0") == "" }

// fullID reports whether s is a full git object id (SHA-1 or SHA-256).
func fullID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}

// binaryHunk reads one "literal N" or "delta N" hunk and its data lines up
// to the empty line that ends it, and returns the inflated data.
func (d *diffReader) binaryHunk(path string) ([]byte, bool, error) {
	if d.i >= len(d.lines) {
		return nil, false, errAt(d.i, path, "the binary patch ends before its data")
	}
	head := d.text(d.i)
	kind, num, _ := strings.Cut(head, " ")
	size, err := strconv.ParseInt(num, 10, 64)
	if kind != "literal" && kind != "delta" || err != nil || size < 0 || size > maxBinary {
		return nil, false, errAt(d.i+1, path, "%q: a binary patch hunk starts with 'literal SIZE' or 'delta SIZE'", clip(head))
	}
	d.i++
	var z []byte
	for ; d.i < len(d.lines) && d.text(d.i) != ""; d.i++ {
		b, err := decode85Line(d.text(d.i))
		if err != nil {
			return nil, false, errAt(d.i+1, path, "the binary patch's data: %v", err)
		}
		z = append(z, b...)
	}
	if d.i < len(d.lines) {
		d.i++ // the empty line
	}
	zr, err := zlib.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil, false, errAt(d.i, path, "the binary patch's data does not inflate: %v", err)
	}
	data, err := io.ReadAll(io.LimitReader(zr, size+1))
	if err != nil || int64(len(data)) != size {
		return nil, false, errAt(d.i, path, "the binary patch's data inflates to %d bytes, not the %d it says (%v)", len(data), size, err)
	}
	return data, kind == "delta", nil
}

// decode85Line decodes one line of git's base-85 data: a length letter
// ('A'-'Z' 1-26 bytes, 'a'-'z' 27-52), then 5 characters per 4 bytes.
func decode85Line(l string) ([]byte, error) {
	if l == "" {
		return nil, fmt.Errorf("an empty line")
	}
	var n int
	switch c := l[0]; {
	case c >= 'A' && c <= 'Z':
		n = int(c-'A') + 1
	case c >= 'a' && c <= 'z':
		n = int(c-'a') + 27
	default:
		return nil, fmt.Errorf("%q: no length letter", clip(l))
	}
	enc := l[1:]
	if len(enc) != (n+3)/4*5 {
		return nil, fmt.Errorf("%q: %d characters for %d bytes", clip(l), len(enc), n)
	}
	out := make([]byte, 0, (n+3)/4*4)
	for i := 0; i < len(enc); i += 5 {
		var acc uint64
		for _, c := range []byte(enc[i : i+5]) {
			v := strings.IndexByte(base85, c)
			if v < 0 {
				return nil, fmt.Errorf("%q: %q is not a base-85 character", clip(l), c)
			}
			acc = acc*85 + uint64(v)
		}
		if acc > 0xffffffff {
			return nil, fmt.Errorf("%q: a group out of range", clip(l))
		}
		out = append(out, byte(acc>>24), byte(acc>>16), byte(acc>>8), byte(acc))
	}
	return out[:n], nil
}
