// Command txedit reads, searches and changes the files of a workspace
// through one transactional engine: every change is planned, checked
// against content hashes, previewed as a diff, and committed
// all-or-nothing through a journal that `txedit undo` rolls back.
//
// Run `txedit help` for the commands.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
