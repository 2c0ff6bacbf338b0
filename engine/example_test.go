package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/plan"
)

// A multi-file change is previewed, committed as one transaction and
// undone.
func ExampleWorkspace_Apply() {
	dir, _ := os.MkdirTemp("", "txedit-example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "greet.txt"), []byte("hello world\n"), 0o644)

	w, err := engine.Open(dir, nil)
	if err != nil {
		panic(err)
	}
	defer w.Close()
	req, _ := plan.Parse([]byte(`{"fileEdits": [
		{"path": "greet.txt", "edits": [{"command": "str_replace", "old_str": "world", "new_str": "there"}]},
		{"path": "docs/new.txt", "edits": [{"command": "create", "file_text": "created\n"}]}]}`))
	ctx := context.Background()

	preview, _ := w.Preview(ctx, req)
	fmt.Print(preview.Diff)

	res, err := w.Apply(ctx, req)
	if err != nil {
		panic(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "greet.txt"))
	fmt.Printf("committed %d files; greet.txt: %s", res.FilesModified, data)

	if _, err := w.Undo(ctx, engine.UndoOptions{}); err != nil {
		panic(err)
	}
	data, _ = os.ReadFile(filepath.Join(dir, "greet.txt"))
	_, statErr := os.Stat(filepath.Join(dir, "docs"))
	fmt.Printf("after undo: %s docs/ exists: %v\n", data, statErr == nil)
	// Output:
	// diff --git a/greet.txt b/greet.txt
	// --- a/greet.txt
	// +++ b/greet.txt
	// @@ -1 +1 @@
	// -hello world
	// +hello there
	// diff --git a/docs/new.txt b/docs/new.txt
	// new file mode 100644
	// --- /dev/null
	// +++ b/docs/new.txt
	// @@ -0,0 +1 @@
	// +created
	// committed 2 files; greet.txt: hello there
	// after undo: hello world
	//  docs/ exists: false
}
