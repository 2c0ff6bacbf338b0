package patch

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/txedit/txedit/plan"
)

// The stale deletion: a patch deletes a block (a function), and since the
// model read the file one line inside that block changed. Every format
// must refuse it (not_found, naming the nearest text), never report it
// already applied: the agent would believe the block is gone.

// staleSrc is a Go file whose functions end alike.
const staleSrc = `package p

import "errors"

// A checks.
func A(x int) error {
	if x < 0 {
		return errors.New("negative")
	}
	return nil
}

// F is the function the patch deletes.
func F(x int) error {
	y := x * 2
	if y > 10 {
		return errors.New("big")
	}
	return nil
}

// B comes after.
func B() error {
	return nil
}

// Last is the file's last function.
func Last(s string) string {
	t := strings.TrimSpace(s)
	if t == "" {
		return "empty"
	}
	return t
}
`

// deletion renders, in format f, a patch that deletes lines [a, b) (0-based)
// of src with up to ctx context lines each side.
func deletion(f Format, src []string, a, b, ctx int) string {
	lo, hi := max(a-ctx, 0), min(b+ctx, len(src))
	var body strings.Builder
	for i := lo; i < hi; i++ {
		mark := " "
		if i >= a && i < b {
			mark = "-"
		}
		body.WriteString(mark + src[i] + "\n")
	}
	eof := ""
	if hi == len(src) {
		eof = "*** End of File\n"
	}
	switch f {
	case FormatApplyPatch:
		return "*** Begin Patch\n*** Update File: p.go\n@@\n" + body.String() + eof + "*** End Patch\n"
	case FormatResponses:
		op := map[string]any{"type": "apply_patch_call", "operation": map[string]any{"type": "update_file", "path": "p.go", "diff": "@@\n" + body.String() + eof}}
		js, _ := json.Marshal(op)
		return string(js)
	}
	n := hi - lo
	return fmt.Sprintf("--- a/p.go\n+++ b/p.go\n@@ -%d,%d +%d,%d @@\n%s", lo+1, n, lo+1, n-(b-a), body.String())
}

// applyOne parses input and applies its single file to content.
func applyOne(t *testing.T, f Format, input string, content string) (string, bool, []*plan.Error) {
	t.Helper()
	files, err := Parse(f, []byte(input))
	if err != nil || len(files) != 1 {
		t.Fatalf("parse %s: %v (%d files)\n%s", f, err, len(files), input)
	}
	o := files[0].Apply([]byte(content))
	return string(o.Content), o.AlreadyApplied, o.Failed
}

// findLine returns the index of the line of src equal to s.
func findLine(t *testing.T, src []string, s string) int {
	t.Helper()
	for i, l := range src {
		if l == s {
			return i
		}
	}
	t.Fatalf("no line %q", s)
	return -1
}

var patchFormats = []Format{FormatApplyPatch, FormatResponses, FormatDiff}

// checkRefused asserts a stale deletion is refused with not_found naming
// the closest text, and changes nothing.
func checkRefused(t *testing.T, f Format, patch, stale string) {
	t.Helper()
	out, already, failed := applyOne(t, f, patch, stale)
	if already || len(failed) == 0 {
		t.Fatalf("%s: a stale deletion was accepted (already applied %v)\npatch:\n%s", f, already, patch)
	}
	if out != stale {
		t.Errorf("%s: content changed on failure", f)
	}
	e := failed[0]
	if e.Code != plan.CodeNotFound || !strings.Contains(e.Msg, "closest text is at lines") {
		t.Errorf("%s: %s: %s; want not_found naming the closest text", f, e.Code, e.Msg)
	}
}

func TestStaleDeletionLastFunction(t *testing.T) {
	src := strings.Split(strings.TrimSuffix(staleSrc, "\n"), "\n")
	a := findLine(t, src, "// Last is the file's last function.")
	for _, f := range patchFormats {
		patch := deletion(f, src, a, len(src), 3)
		// One line of the function changed since the model read it.
		stale := strings.Replace(staleSrc, `return "empty"`, `return "blank"`, 1)
		checkRefused(t, f, patch, stale)
		// The message names the line that differs.
		_, _, failed := applyOne(t, f, patch, stale)
		if !strings.Contains(failed[0].Msg, `return \"blank\"" where yours has`) {
			t.Errorf("%s: the message does not name the changed line: %s", f, failed[0].Msg)
		}
		// Applied once it deletes; sent again onto the result it is a
		// proven retry (context at the end, no trace of the function).
		done, already, failed := applyOne(t, f, patch, staleSrc)
		if len(failed) > 0 || already || strings.Contains(done, "Last") {
			t.Fatalf("%s: apply: %v %v\n%s", f, already, failed, done)
		}
		again, already, failed := applyOne(t, f, patch, done)
		if len(failed) > 0 || !already || again != done {
			t.Errorf("%s: retry: already %v, failed %v", f, already, failed)
		}
		if f == FormatDiff {
			continue
		}
		// Without *** End of File the context ("return nil", "}", "")
		// stands in three places: no proof, not_found naming them.
		noEOF := strings.Replace(strings.Replace(patch, "*** End of File\n", "", 1), `*** End of File\n`, "", 1)
		if _, already, failed := applyOne(t, f, noEOF, done); already || len(failed) == 0 || !strings.Contains(failed[0].Msg, "the new lines already stand at lines") {
			t.Errorf("%s: retry without End of File: already %v, failed %v", f, already, failed)
		}
	}
}

func TestStaleDeletionLookAlikeEndings(t *testing.T) {
	src := strings.Split(strings.TrimSuffix(staleSrc, "\n"), "\n")
	a := findLine(t, src, "// F is the function the patch deletes.")
	b := findLine(t, src, "// B comes after.")
	for _, f := range patchFormats {
		patch := deletion(f, src, a, b, 3)
		// F's first line changed: F now ends as A did before it, so the
		// hunk's context (A's end, then B's start) stands together at
		// F's end, inside the function the patch should delete.
		stale := strings.Replace(staleSrc, "\ty := x * 2\n", "\ty := x * 3\n", 1)
		checkRefused(t, f, patch, stale)
		done, _, failed := applyOne(t, f, patch, staleSrc)
		if len(failed) > 0 || strings.Contains(done, "func F") {
			t.Fatalf("%s: apply: %v", f, failed)
		}
		if _, already, failed := applyOne(t, f, patch, done); !already || len(failed) > 0 {
			t.Errorf("%s: retry: already %v, failed %v", f, already, failed)
		}
	}
}

// TestStaleDeletionAnyLine changes each line of the deleted block in turn
// (first, middle, last, the closing brace): every one is refused.
func TestStaleDeletionAnyLine(t *testing.T) {
	src := strings.Split(strings.TrimSuffix(staleSrc, "\n"), "\n")
	a := findLine(t, src, "// F is the function the patch deletes.")
	b := findLine(t, src, "// B comes after.")
	for _, f := range patchFormats {
		patch := deletion(f, src, a, b, 3)
		for i := a; i < b; i++ {
			if strings.TrimSpace(src[i]) == "" {
				continue
			}
			lines := append([]string(nil), src...)
			lines[i] += " // changed"
			stale := strings.Join(lines, "\n") + "\n"
			t.Run(fmt.Sprintf("%s/line%d", f, i+1), func(t *testing.T) { checkRefused(t, f, patch, stale) })
		}
	}
}

// TestNewLinesBesideNearOldAreNoProof: a hunk that replaces lines, one of which
// changed since the model read it, is not found even when its added lines
// happen to stand nearby: most of its old side still stands there.
func TestNewLinesBesideNearOldAreNoProof(t *testing.T) {
	// The hunk replaces "y := x * 2" with "return nil" at F's start; F
	// still holds its old lines but one, and "return nil" stands at F's
	// end followed by the same context.
	in := "func F(x int) error {\n\ty := x * 3\n\treturn nil\n}\n"
	patch := "*** Begin Patch\n*** Update File: p.go\n@@\n func F(x int) error {\n-\ty := x * 2\n \treturn nil\n }\n*** End Patch\n"
	_, already, failed := applyOne(t, FormatApplyPatch, patch, in)
	if already || len(failed) == 0 || failed[0].Code != plan.CodeNotFound {
		t.Fatalf("already %v, failed %v", already, failed)
	}
	// A replacement whose new line stands where its old one was, with
	// the old gone, is a proven retry.
	repl := "*** Begin Patch\n*** Update File: p.go\n@@\n func F(x int) error {\n-\ty := x * 2\n+\ty := x * 4\n \treturn nil\n*** End Patch\n"
	if _, already, failed := applyOne(t, FormatApplyPatch, repl, "func F(x int) error {\n\ty := x * 4\n\treturn nil\n}\n"); !already || len(failed) > 0 {
		t.Errorf("retry of a replacement: already %v, failed %v", already, failed)
	}
	// The same, but the old line still stands just below: not proof.
	if _, already, failed := applyOne(t, FormatApplyPatch, repl, "func F(x int) error {\n\ty := x * 4\n\treturn nil\n\ty := x * 2\n\treturn nil\n}\n"); already || len(failed) == 0 {
		t.Errorf("new lines beside the old ones: already %v, failed %v", already, failed)
	}
}
