//go:build !linux

package fsys

import "errors"

// ReadLease implements [FS]: leases are Linux's; elsewhere a save in
// place during a commit's last moment is caught only by the identity
// check (docs/journal.md, "Writers outside txedit").
func (o *OS) ReadLease(name string) (Lease, error) { return nil, errors.ErrUnsupported }
