//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMinimalJournaled checks the least journaled commit the table
// compares with: each staging puts every new content in place, leaves no
// staged file, and leaves one journal file holding every old content
// with its name, beside its end mark.
func TestMinimalJournaled(t *testing.T) {
	for _, how := range []staging{namedStaging, unnamedStaging, pipelinedStaging, syncfsStaging} {
		t.Run(fmt.Sprint(how), func(t *testing.T) {
			root := t.TempDir()
			if err := os.Mkdir(filepath.Join(root, minimalJournalDir), 0o700); err != nil {
				t.Fatal(err)
			}
			olds, news := map[string][]byte{}, map[string][]byte{}
			for i := range 40 {
				name := fmt.Sprintf("d%d/f%02d.txt", i%3, i)
				olds[name] = []byte(strings.Repeat(fmt.Sprintf("old %d\n", i), 100))
				news[name] = []byte(fmt.Sprintf("new %d\n", i))
				if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(root, name), olds[name], 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := minimalJournaled(root, news, how); err != nil {
				t.Fatal(err)
			}
			if err := verify(root, news); err != nil {
				t.Fatal(err)
			}
			for d := range 3 {
				if left, _ := filepath.Glob(filepath.Join(root, fmt.Sprint("d", d), "*.tmp")); len(left) > 0 {
					t.Errorf("staged files left: %v", left)
				}
			}
			entries, err := os.ReadDir(filepath.Join(root, minimalJournalDir))
			if err != nil || len(entries) != 2 || entries[1].Name() != entries[0].Name()+".committed" {
				t.Fatalf("journal holds %v (%v), want one file and its end mark", entries, err)
			}
			rec, err := os.ReadFile(filepath.Join(root, minimalJournalDir, entries[0].Name()))
			if err != nil {
				t.Fatal(err)
			}
			for name, old := range olds {
				if !strings.Contains(string(rec), fmt.Sprintf("%s %d\n", name, len(old))) || !strings.Contains(string(rec), string(old)) {
					t.Errorf("the journal does not hold %s's old content and name", name)
				}
			}
		})
	}
}

// TestFloorsSyncDirectoriesInFlight: the bare durable write and every
// shape of the least journaled commit issue their directories' fsyncs at
// once, as txedit's journal does, not one after the other: each fsync
// here returns only once all three directories' are in flight (or after
// a second, failing the test).
func TestFloorsSyncDirectoriesInFlight(t *testing.T) {
	defer func(old func(string) error) { dirSync = old }(dirSync)
	type run struct {
		name string
		fn   func(root string, news map[string][]byte) error
	}
	runs := []run{{"bare", bareDurable}}
	for _, how := range []staging{namedStaging, unnamedStaging, pipelinedStaging} {
		runs = append(runs, run{fmt.Sprint(how), func(root string, news map[string][]byte) error { return minimalJournaled(root, news, how) }})
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.Mkdir(filepath.Join(root, minimalJournalDir), 0o700); err != nil {
				t.Fatal(err)
			}
			news := map[string][]byte{}
			for i := range 12 {
				name := fmt.Sprintf("d%d/f%02d.txt", i%3, i)
				news[name] = []byte("new\n")
				os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755)
				if err := os.WriteFile(filepath.Join(root, name), []byte("old\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var mu sync.Mutex
			waiting := 0
			all := make(chan struct{})
			dirSync = func(d string) error {
				if filepath.Base(d) == minimalJournalDir {
					return nil // the journal's round: its own directory alone
				}
				mu.Lock()
				if waiting++; waiting == 3 {
					close(all)
				}
				mu.Unlock()
				select {
				case <-all:
					return nil
				case <-time.After(time.Second):
					return fmt.Errorf("fsync of %s: the other directories' fsyncs are not in flight", d)
				}
			}
			if err := r.fn(root, news); err != nil {
				t.Fatal(err)
			}
			if err := verify(root, news); err != nil {
				t.Fatal(err)
			}
		})
	}
}
