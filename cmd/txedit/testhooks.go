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
//	TXEDIT_TEST_STOP_AT=N   once the process has made N file-system calls,
//	                        write "stopped at call M" (M >= N: the calls
//	                        are watched, not intercepted) to file
//	                        descriptor 3 and stop (SIGSTOP), so that the
//	                        test kills it from outside at a point it
//	                        observed, never after a sleep

import (
	"fmt"
	"github.com/txedit/txedit/journal"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/fsys/faultfs"
)

func init() {
	var counter *faultfs.FS
	var watching sync.Once
	testOnlyOptions = func(root string, o *engine.Options) {
		if os.Getenv("TXEDIT_TEST_NOSYNC") != "" {
			o.Durability = engine.NotDurable
		}
		at, _ := strconv.Atoi(os.Getenv("TXEDIT_TEST_KILL_AT"))
		mode := faultfs.ModeKill
		if eio, _ := strconv.Atoi(os.Getenv("TXEDIT_TEST_EIO_AT")); eio > 0 {
			at, mode = eio, faultfs.ModeError
		}
		stopAt, _ := strconv.Atoi(os.Getenv("TXEDIT_TEST_STOP_AT"))
		if at == 0 && stopAt == 0 && os.Getenv("TXEDIT_TEST_COUNT") == "" {
			return
		}
		// The tests write their files just before each run: whether a
		// file's read is trusted by its identity (stableRead) must not
		// depend on how long the machine took to start the process, or
		// the calls counted in the clean run are not the killed run's.
		o.TimestampSlack = -time.Hour
		inner, err := fsys.NewOS(root)
		if err != nil {
			return
		}
		counter = &faultfs.FS{Inner: inner, FailAt: at, Mode: mode}
		o.FS = counter
		o.Keys = journal.UserKeys() // the disk's journal: the user's keys, as without the hook
		if stopAt > 0 {
			c := counter
			watching.Do(func() { go stopWhen(c, stopAt) })
		}
	}
	testOnlyDone = func() {
		if counter != nil && os.Getenv("TXEDIT_TEST_COUNT") != "" {
			fmt.Fprintf(os.Stderr, "calls %d\n", counter.N())
		}
	}
}

// stopWhen waits until c has counted n calls, says so on file descriptor 3
// and stops the process: every goroutine freezes wherever it is, between
// calls or inside one, until the test's SIGKILL.
func stopWhen(c *faultfs.FS, n int) {
	for c.N() < n {
		time.Sleep(20 * time.Microsecond)
	}
	report := os.NewFile(3, "stop report")
	fmt.Fprintf(report, "stopped at call %d\n", c.N())
	syscall.Kill(os.Getpid(), syscall.SIGSTOP)
}
