package engine

import (
	"context"

	"github.com/txedit/txedit/journal"
	"github.com/txedit/txedit/plan"
)

// What a session does as its workspace does: reads the read-before-write
// rule does not concern, the journal's history, and where the workspace
// is. A session holds its workspace rather than embedding it, so that
// closing a session never closes the workspace.

// Workspace returns the workspace the session works in.
func (s *Session) Workspace() *Workspace { return s.w }

// Root is [Workspace.Root].
func (s *Session) Root() string { return s.w.Root() }

// RealRoot is [Workspace.RealRoot].
func (s *Session) RealRoot() string { return s.w.RealRoot() }

// OnDisk is [Workspace.OnDisk].
func (s *Session) OnDisk() bool { return s.w.OnDisk() }

// IsDir is [Workspace.IsDir].
func (s *Session) IsDir(p string) (bool, error) { return s.w.IsDir(p) }

// Stat is [Workspace.Stat].
func (s *Session) Stat(ctx context.Context, p string) (*FileStat, error) { return s.w.Stat(ctx, p) }

// List is [Workspace.List].
func (s *Session) List(ctx context.Context, p string, lo ListOptions) ([]*plan.DirEntry, error) {
	return s.w.List(ctx, p, lo)
}

// Glob is [Workspace.Glob].
func (s *Session) Glob(ctx context.Context, o GlobOptions) (*plan.GlobResult, error) {
	return s.w.Glob(ctx, o)
}

// Grep is [Workspace.Grep].
func (s *Session) Grep(ctx context.Context, req *plan.GrepRequest) (*plan.GrepResult, error) {
	return s.w.Grep(ctx, req)
}

// Diff is [Workspace.Diff].
func (s *Session) Diff(ctx context.Context, a, b string) (string, error) { return s.w.Diff(ctx, a, b) }

// Preview is [Workspace.Preview]: a dry run writes nothing, so the
// read-before-write rule does not apply to it.
func (s *Session) Preview(ctx context.Context, req *plan.Request) (*plan.Result, error) {
	return s.w.Preview(ctx, req)
}

// Log is [Workspace.Log].
func (s *Session) Log(ctx context.Context, o LogOptions) ([]*TxnInfo, error) { return s.w.Log(ctx, o) }

// Show is [Workspace.Show].
func (s *Session) Show(ctx context.Context, id string) (*TxnInfo, string, error) {
	return s.w.Show(ctx, id)
}

// ShowStream is [Workspace.ShowStream].
func (s *Session) ShowStream(ctx context.Context, id string, head func(*TxnInfo) error, diff func(string) error) error {
	return s.w.ShowStream(ctx, id, head, diff)
}

// ShowFiles is [Workspace.ShowFiles].
func (s *Session) ShowFiles(ctx context.Context, id string, head func(*TxnInfo) error, diff func(path, d string) error) error {
	return s.w.ShowFiles(ctx, id, head, diff)
}

// GC is [Workspace.GC].
func (s *Session) GC(ctx context.Context) ([]string, error) { return s.w.GC(ctx) }

// Recover is [Workspace.Recover].
func (s *Session) Recover(ctx context.Context) ([]*journal.Report, error) { return s.w.Recover(ctx) }

// Recovered is [Workspace.Recovered].
func (s *Session) Recovered() []*journal.Report { return s.w.Recovered() }

// Strays is [Workspace.Strays].
func (s *Session) Strays() ([]string, error) { return s.w.Strays() }
