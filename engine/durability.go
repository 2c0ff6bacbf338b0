package engine

import (
	"strings"

	"github.com/txedit/txedit/plan"
)

// warnDurabilityUnknown starts the warning of a commit that reached its
// commit point but could not make the commit mark durable.
const warnDurabilityUnknown = "committed, but its durability is unknown"

// durabilityUnknown is the outcome of a commit whose COMMITTED mark was
// written but whose sync failed (journal.ErrCommitUnknown): the files are
// changed and the journal lists the transaction committed, so it is not a
// failure, which would tell the caller that nothing was written (and an
// agent retrying an append would apply it twice). Retention is not run on
// a file system that just failed a sync.
func durabilityUnknown(err error) (warning string) {
	return warnDurabilityUnknown + " (" + err.Error() + "): the change took effect and txedit log lists it committed, " +
		"but a power loss before the next sync may roll it back; do not retry the request"
}

// noteDurability marks a result whose commit's durability is unknown.
func noteDurability(res *plan.Result, warning string) {
	if strings.HasPrefix(warning, warnDurabilityUnknown) {
		res.Durability = plan.DurabilityUnknown
		res.Code = plan.CodeCommitUnknown
	}
}
