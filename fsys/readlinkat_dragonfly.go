package fsys

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// readlinkat is readlinkat(2), which golang.org/x/sys/unix does not wrap
// on DragonFly.
func readlinkat(dfd int, name string, b []byte) (int, error) {
	p, err := unix.BytePtrFromString(name)
	if err != nil {
		return 0, err
	}
	var bp unsafe.Pointer
	if len(b) > 0 {
		bp = unsafe.Pointer(&b[0])
	}
	n, _, e := unix.Syscall6(unix.SYS_READLINKAT, uintptr(dfd), uintptr(unsafe.Pointer(p)), uintptr(bp), uintptr(len(b)), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}
