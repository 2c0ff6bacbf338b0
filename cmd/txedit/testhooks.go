//go:build txedit_testhooks

package main

// Hooks for the process-kill tests, compiled only with -tags
// txedit_testhooks:
//
//	TXEDIT_TEST_KILL_AT=N   SIGKILL the process at its Nth file-system call
//	TXEDIT_TEST_EIO_AT=N    fail its Nth file-system call with EIO
//	TXEDIT_TEST_COUNT=1     print "calls N" to stderr when the command ends
//	TXEDIT_TEST_NOSYNC=1    no fsync: a process kill keeps the page cache,
//	                        so durability is not what these tests check

import (
	"fmt"
	"os"
	"strconv"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/fsys/faultfs"
)

func init() {
	var counter *faultfs.FS
	testOnlyOptions = func(root string, o *engine.Options) {
		if os.Getenv("TXEDIT_TEST_NOSYNC") != "" {
			o.Durability = engine.NotDurable
		}
		at, _ := strconv.Atoi(os.Getenv("TXEDIT_TEST_KILL_AT"))
		mode := faultfs.ModeKill
		if eio, _ := strconv.Atoi(os.Getenv("TXEDIT_TEST_EIO_AT")); eio > 0 {
			at, mode = eio, faultfs.ModeError
		}
		if at == 0 && os.Getenv("TXEDIT_TEST_COUNT") == "" {
			return
		}
		inner, err := fsys.NewOS(root)
		if err != nil {
			return
		}
		counter = &faultfs.FS{Inner: inner, FailAt: at, Mode: mode}
		o.FS = counter
	}
	testOnlyDone = func() {
		if counter != nil && os.Getenv("TXEDIT_TEST_COUNT") != "" {
			fmt.Fprintf(os.Stderr, "calls %d\n", counter.N())
		}
	}
}
