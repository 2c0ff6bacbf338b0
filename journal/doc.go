// Package journal is txedit's write-ahead undo journal: the on-disk record
// of every transaction in <root>/.txedit/ and the protocol that commits one
// all-or-nothing.
//
// # Protocol
//
// Under the workspace lock ([Journal.Lock], which first recovers what a
// dead owner left), [Locked.Begin] writes the transaction's [Manifest]
// durably before any user file is touched, as the first record of the
// transaction's one file (layout.go); [Tx.Stage] records each file's
// before-image and diff in the same file after it (the pack) and writes
// its new content to a staging file beside the target; [Tx.Commit] makes them durable, marks
// the transaction PREPARED, re-checks every target's identity, renames the
// staged files into place (creates never clobber), makes the directories
// durable and creates the COMMITTED mark: its creation is the commit point.
//
// # Recovery
//
// A transaction PREPARED but not COMMITTED is rolled back file by file,
// each classified by its content: a file that is neither its old nor its
// new version is never overwritten (its bytes are saved aside and
// reported). After a crash at any point and recovery, every file of the
// transaction is entirely old or entirely new.
//
// # Log
//
// [Journal.List] lists transactions, [Journal.Before] and [Journal.EachDiff]
// read what they recorded, and [Locked.GC] applies retention.
//
// Every file-system call goes through an [fsys.FS], so the crash tests run
// this code on a power-loss model and crash it at every call.
package journal
