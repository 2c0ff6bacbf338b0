package tools

import "golang.org/x/sys/unix"

// exchangeNames swaps two names atomically (renameatx_np with
// RENAME_SWAP, macOS's RENAME_EXCHANGE); see exchange_linux_test.go.
func exchangeNames(fromfd int, from string, tofd int, to string) error {
	return unix.RenameatxNp(fromfd, from, tofd, to, unix.RENAME_SWAP)
}
