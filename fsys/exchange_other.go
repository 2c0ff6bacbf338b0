//go:build !linux

package fsys

import "errors"

// Exchange implements [FS]: there is no atomic exchange here (macOS's
// renamex_np with RENAME_SWAP is not used yet), so the commit renames.
func (o *OS) Exchange(a, b string) error { return errors.ErrUnsupported }
