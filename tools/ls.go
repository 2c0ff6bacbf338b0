package tools

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/plan"
)

// lsEntry is what an ls -l line shows of an entry.
type lsEntry struct {
	*plan.DirEntry
	mode         fs.FileMode
	links        uint64
	owner, group string
	blocks       int64 // 512-byte blocks
	mtime        time.Time
}

// listLong lists a directory down to depth levels and renders it as
// `ls -lA` does (`ls -lAR`, one section per directory, when depth > 0):
// a "total" line of 1 KiB blocks, then per entry its mode, links, owner,
// group, size, time and name (a symlink's target after "->"), the
// columns aligned, entries in byte order of their names. Directories
// below the workspace's journal and "." and ".." are left out.
func listLong(ctx context.Context, env *Env, dir string, depth int, exclude ...string) ([]*plan.DirEntry, string, error) {
	var mu sync.Mutex
	info := map[string]*lsEntry{}
	ents, err := env.W.List(ctx, dir, engine.ListOptions{Depth: depth, Ignore: exclude, Each: func(e *plan.DirEntry, fi fs.FileInfo) {
		le := statEntry(e, fi)
		mu.Lock()
		info[e.Path] = le
		mu.Unlock()
	}})
	if err != nil {
		return nil, "", err
	}
	// Group the entries by their directory, relative to dir.
	base := rootRel(env, dir)
	byDir := map[string][]*lsEntry{}
	for _, e := range ents {
		parent := path.Dir(e.Path)
		if parent == "." {
			parent = ""
		}
		if le := info[e.Path]; le != nil {
			byDir[parent] = append(byDir[parent], le)
		}
	}
	now := time.Now()
	var b strings.Builder
	var section func(rel, shown string, level int)
	section = func(rel, shown string, level int) {
		list := byDir[rel]
		sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
		if depth > 0 {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(shown + ":\n")
		}
		writeLong(&b, list, now)
		if level >= depth {
			return
		}
		for _, e := range list {
			if e.Kind == plan.KindDir && (e.Name != ".git" || byDir[e.Path] != nil) {
				section(e.Path, shown+"/"+e.Name, level+1)
			}
		}
	}
	shown := strings.TrimSuffix(dir, "/")
	if shown == "" {
		shown = "."
	}
	section(base, shown, 0)
	return ents, b.String(), nil
}

// writeLong writes the entries of one directory as ls -l does.
func writeLong(b *strings.Builder, list []*lsEntry, now time.Time) {
	var blocks int64
	wLinks, wOwner, wGroup, wSize := 0, 0, 0, 0
	for _, e := range list {
		blocks += e.blocks
		wLinks = max(wLinks, len(strconv.FormatUint(e.links, 10)))
		wOwner = max(wOwner, len(e.owner))
		wGroup = max(wGroup, len(e.group))
		wSize = max(wSize, len(strconv.FormatInt(e.Size, 10)))
	}
	fmt.Fprintf(b, "total %d\n", (blocks+1)/2)
	for _, e := range list {
		name := e.Name
		if e.Kind == plan.KindSymlink {
			name += " -> " + e.Target
		}
		fmt.Fprintf(b, "%s %*d %-*s %-*s %*d %s %s\n", lsMode(e.mode), wLinks, e.links, wOwner, e.owner, wGroup, e.group, wSize, e.Size, lsTime(e.mtime, now), name)
	}
}

// lsTime is ls's time column: month, day and time for the last six
// months, month, day and year otherwise.
func lsTime(t, now time.Time) string {
	t = t.Local()
	const halfYear = 31556952 / 2 * time.Second
	if t.After(now.Add(-halfYear)) && !t.After(now.Add(time.Second)) {
		return t.Format("Jan _2 15:04")
	}
	return t.Format("Jan _2  2006")
}

// lsMode is ls's mode column, e.g. drwxr-xr-x, -rwsr-xr-x, lrwxrwxrwx.
func lsMode(m fs.FileMode) string {
	var b [10]byte
	switch {
	case m.IsDir():
		b[0] = 'd'
	case m&fs.ModeSymlink != 0:
		b[0] = 'l'
	case m&fs.ModeNamedPipe != 0:
		b[0] = 'p'
	case m&fs.ModeSocket != 0:
		b[0] = 's'
	case m&fs.ModeCharDevice != 0:
		b[0] = 'c'
	case m&fs.ModeDevice != 0:
		b[0] = 'b'
	default:
		b[0] = '-'
	}
	const rwx = "rwxrwxrwx"
	for i := 0; i < 9; i++ {
		if m&(1<<uint(8-i)) != 0 {
			b[i+1] = rwx[i]
		} else {
			b[i+1] = '-'
		}
	}
	special := func(i int, set bool, x, noX byte) {
		if !set {
			return
		}
		if b[i] == '-' {
			b[i] = noX
		} else {
			b[i] = x
		}
	}
	special(3, m&fs.ModeSetuid != 0, 's', 'S')
	special(6, m&fs.ModeSetgid != 0, 's', 'S')
	special(9, m&fs.ModeSticky != 0, 't', 'T')
	return string(b[:])
}

// statEntry takes what ls -l shows from an entry's file information: the
// platform's stat data where there is one (links, owner, group, blocks),
// the process's own user and a block count from the size elsewhere (an
// in-memory workspace).
func statEntry(e *plan.DirEntry, fi fs.FileInfo) *lsEntry {
	le := &lsEntry{DirEntry: e, mode: fi.Mode(), links: 1, mtime: fi.ModTime(), blocks: (fi.Size() + 511) / 512}
	uid, gid := os.Getuid(), os.Getgid()
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		le.links, le.blocks = uint64(st.Nlink), int64(st.Blocks)
		uid, gid = int(st.Uid), int(st.Gid)
	} else if fi.IsDir() {
		le.links = 2
	}
	le.owner, le.group = userName(uid), groupName(gid)
	return le
}

var names sync.Map // "u123" / "g123" -> name

// userName and groupName name an owner as ls -l does, from /etc/passwd
// and /etc/group (a number where they do not name it). os/user would
// ask the C library (NSS) through cgo, which made every txedit process
// load libc and start ~2x slower than a static Go program (docs/design.md,
// "Process start");
// what it would add is users from LDAP and the like, which ls on this
// machine would name and this shows as numbers.
func userName(uid int) string { return idName("u", "/etc/passwd", 2, uid) }

func groupName(gid int) string { return idName("g", "/etc/group", 2, gid) }

// idName finds the first line of file (colon-separated) whose field at
// col is id, and returns its first field.
func idName(kind, file string, col, id int) string {
	k := kind + strconv.Itoa(id)
	if n, ok := names.Load(k); ok {
		return n.(string)
	}
	n := strconv.Itoa(id)
	if data, err := os.ReadFile(file); err == nil {
		for line := range strings.SplitSeq(string(data), "\n") {
			f := strings.Split(line, ":")
			if len(f) > col && f[col] == n && f[0] != "" && !strings.HasPrefix(f[0], "#") {
				n = f[0]
				break
			}
		}
	}
	names.Store(k, n)
	return n
}
