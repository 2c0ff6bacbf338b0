package plan

// Result is the outcome of a write request: the JSON of `txedit apply
// --json`, the txedit toolset's fs_write and the MCP server.
type Result struct {
	Success       bool   `json:"success"`
	DryRun        bool   `json:"dry_run"`
	TransactionID string `json:"transaction_id,omitempty"`
	// Summary describes the committed transaction as the journal records
	// it (txedit log shows it).
	Summary       string        `json:"summary,omitempty"`
	Files         []*FileResult `json:"files"`
	FilesModified int           `json:"files_modified"`
	FilesSkipped  int           `json:"files_skipped"`
	// Skipped lists the files a pattern_replace passed over, each with
	// why: binary files (never edited as text: binary_file) and, in a
	// request that is not atomic, files it could not read or change
	// (too_large, denied, io_error). In an atomic request such a file
	// fails the request instead. FilesSkipped is its length.
	Skipped []*SkippedFile `json:"skipped,omitempty"`
	Diff    string         `json:"diff,omitempty"`
	Code    Code           `json:"code,omitempty"`
	Error   string         `json:"error,omitempty"`
	// Warnings report trouble that did not change the outcome (a journal
	// clean-up that failed after the commit, say).
	Warnings []string `json:"warnings,omitempty"`
	// Durability is DurabilityUnknown when the transaction committed but
	// its commit mark could not be made durable (Code is then
	// CodeCommitUnknown and Success true): the change took effect, and a
	// power loss before the next sync may still roll it back. Empty
	// otherwise.
	Durability Durability `json:"durability,omitempty"`
	// Groups are a dry run's changes of an LSP WorkspaceEdit that carries
	// change annotations, by label (docs/lsp.md, "Annotations"): what a
	// person reads before confirming.
	Groups []ChangeGroup `json:"groups,omitempty"`
}

// ChangeGroup is the changes of a WorkspaceEdit under one change
// annotation (the label "" holds those under none).
type ChangeGroup struct {
	Label             string          `json:"label"`
	Description       string          `json:"description,omitempty"`
	NeedsConfirmation bool            `json:"needs_confirmation,omitempty"`
	Changes           []GroupedChange `json:"changes"`
}

// GroupedChange is one change of a [ChangeGroup]: a text edit (Op
// "edit": the lines it touches, from Line, 1-based, of the document as
// the edit saw it, before and after) or a resource operation (create,
// rename, delete).
type GroupedChange struct {
	Op      string `json:"op"`
	Path    string `json:"path"`
	NewPath string `json:"new_path,omitempty"`
	Line    int    `json:"line,omitempty"`
	Old     string `json:"old,omitempty"`
	New     string `json:"new,omitempty"`
}

// Durability is [Result.Durability]: empty, or DurabilityUnknown.
type Durability string

// DurabilityUnknown is [Result.Durability] of a commit whose mark was
// written but not made durable.
const DurabilityUnknown Durability = "unknown"

// FileResult is the outcome for one file. Path is as the request named it
// (root-relative with "/" for files found by pattern_replace).
type FileResult struct {
	Path         string        `json:"path"`
	Success      bool          `json:"success"`
	EditsApplied int           `json:"edits_applied"`
	EditsFailed  int           `json:"edits_failed"`
	FailedEdits  []*FailedEdit `json:"failed_edits,omitempty"`
	// ContentHash is the file's new whole-file hash, so a caller can chain
	// edits without reading again. After a move it is the hash at NewPath;
	// after a delete it is empty.
	ContentHash  string `json:"content_hash,omitempty"`
	NewPath      string `json:"new_path,omitempty"`
	Replacements int    `json:"replacements"`
	// Occurrences counts what the file's str_replace edits found, which is
	// more than Replacements when one with first met several.
	Occurrences int   `json:"occurrences,omitempty"`
	WouldModify *bool `json:"would_modify,omitempty"`
	// Status says what happened (or, in a dry run, would happen) to the
	// file; empty when nothing.
	Status Status `json:"status,omitempty"`
	// AppliedBy names, for a file already_applied by journal proof, the
	// transaction that made the change (a request sent again).
	AppliedBy string `json:"applied_by,omitempty"`
	// LinesAdded and LinesRemoved count the lines of the file's diff.
	LinesAdded   int `json:"lines_added,omitempty"`
	LinesRemoved int `json:"lines_removed,omitempty"`
	// Hunks says, for a patch, where each hunk went and which rung of the
	// matching ladder placed it; Match is the loosest rung the file needed
	// (exact, trailing_whitespace, whitespace, unicode).
	Hunks []HunkReport `json:"hunks,omitempty"`
	Match Rung         `json:"match,omitempty"`
	// Preview is the file's diff in a dry run (the RFC's field), Diff the
	// diff that was committed.
	Preview string `json:"preview,omitempty"`
	Diff    string `json:"diff,omitempty"`
	// DiffLeft says, in a streamed result (engine.StreamResultsWhile),
	// that the file's committed diff is in the journal but was not read
	// back for the stream. Never sent.
	DiffLeft bool   `json:"-"`
	Code     Code   `json:"code,omitempty"`
	Error    string `json:"error,omitempty"`
	// Delta says what changed in the file since the version the edit
	// was made against (the session's read, or the content_hash of a
	// request that opts in to the rebase): on a success whose edit was
	// applied on top of that change (Rebased), and on a stale_hash
	// refusal (docs/design.md, "Concurrency"). Nil when nothing changed.
	Delta *Delta `json:"delta,omitempty"`
}

// Delta is what changed in a file between the version an edit was made
// against and the one it met ([FileResult.Delta]).
type Delta struct {
	// Read is the hash of the version the edit was made against,
	// Current that of the version it met (and, rebased, was applied on).
	Read    string `json:"read"`
	Current string `json:"current"`
	// Rebased: the edit was applied on top of the change.
	Rebased bool `json:"rebased,omitempty"`
	// By says who made the change, oldest first: agents and their
	// transactions, and writers outside txedit.
	By []Changer `json:"by,omitempty"`
	// From names the path the file had in the version read, when it was
	// moved since.
	From string `json:"from,omitempty"`
	// Diff is the change as hunks without context ("@@ -A,N +B,M @@",
	// "-" old lines, "+" new ones; B counts lines of the current
	// version), up to a cap; Reread lists, 1-based and inclusive, the
	// lines of the current version of the changes the cap left out.
	Diff   string   `json:"diff,omitempty"`
	Reread [][2]int `json:"reread,omitempty"`
	// Region is, on a refusal, the current text of the lines the edit and
	// the change both concern; Why says why the edit was not rebased.
	Region *Region `json:"region,omitempty"`
	Why    string  `json:"why,omitempty"`
}

// Changer is who made a change ([Delta.By]): an agent's transaction, or
// someone outside txedit.
type Changer struct {
	Agent       string `json:"agent,omitempty"`
	Transaction string `json:"transaction,omitempty"`
	Outside     bool   `json:"outside,omitempty"`
}

// Region is lines Start..End (1-based, inclusive) of a file's current
// version, each without its line ending, and their hash token.
type Region struct {
	Start int      `json:"start"`
	End   int      `json:"end"`
	Lines []string `json:"lines"`
	Token string   `json:"content_hash"`
}

// Status is what happened (or, in a dry run, would happen) to a file
// ([FileResult.Status]).
type Status string

// The statuses of a file.
const (
	StatusCreated  Status = "created"
	StatusModified Status = "modified"
	StatusDeleted  Status = "deleted"
	StatusMoved    Status = "moved"
	StatusCopied   Status = "copied"
	// StatusAlreadyApplied: a patch (or a request sent again) found its
	// change already made (docs/patch-formats.md).
	StatusAlreadyApplied Status = "already_applied"
)

// SkippedFile is a file a pattern_replace passed over.
type SkippedFile struct {
	Path   string `json:"path"`
	Code   Code   `json:"code"`
	Reason string `json:"reason"`
}

// FailedEdit reports one edit that failed.
type FailedEdit struct {
	Index   int    `json:"index"`
	Command string `json:"command,omitempty"`
	Code    Code   `json:"code"`
	Error   string `json:"error"`
	// CurrentHash is the current token of the range a stale_hash was about.
	CurrentHash string `json:"current_hash,omitempty"`
}
