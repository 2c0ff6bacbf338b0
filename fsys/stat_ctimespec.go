//go:build darwin || freebsd || netbsd

package fsys

import (
	"syscall"
	"time"
)

func statIdentity(id *Identity, s *syscall.Stat_t) {
	id.Dev, id.Ino, id.Nlink = uint64(s.Dev), uint64(s.Ino), uint64(s.Nlink)
	id.Ctime = int64(s.Ctimespec.Sec)*1e9 + int64(s.Ctimespec.Nsec)
	id.Atime = int64(s.Atimespec.Sec)*1e9 + int64(s.Atimespec.Nsec)
	id.Uid, id.Gid = int(s.Uid), int(s.Gid)
}

func statMtime(s *syscall.Stat_t) time.Time {
	return time.Unix(int64(s.Mtimespec.Sec), int64(s.Mtimespec.Nsec))
}
