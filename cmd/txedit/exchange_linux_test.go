package main

import "golang.org/x/sys/unix"

// exchangeNames swaps two names of one file system atomically: the swap
// races (swaprace_test.go here and in tools) flip a harmless directory and a symbolic link
// into a place the tools must never reach (docs/design.md, "Threat model").
func exchangeNames(fromfd int, from string, tofd int, to string) error {
	return unix.Renameat2(fromfd, from, tofd, to, unix.RENAME_EXCHANGE)
}
