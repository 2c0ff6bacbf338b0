package main

import (
	"fmt"
	"syscall"
)

// fsKind names the file system that holds dir, for the report.
func fsKind(dir string) string {
	var st syscall.Statfs_t
	if syscall.Statfs(dir, &st) != nil {
		return "?"
	}
	switch st.Type {
	case 0xef53:
		return "ext4"
	case 0x01021994:
		return "tmpfs"
	case 0x9123683e:
		return "btrfs"
	case 0x58465342:
		return "xfs"
	case 0x794c7630:
		return "overlayfs"
	}
	return fmt.Sprintf("0x%x", st.Type)
}
