package mcpserver

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestImagesReachTheModel: a PNG read in Claude's Read and in fs_read's
// Image mode (Amazon Q and txedit) arrives as an MCP image content block
// with the file's bytes; the text beside it does not carry the base64,
// and no structured content repeats it (Read used to send a text block
// with the data hidden in structuredContent, Image mode base64 inside JSON
// text).
func TestImagesReachTheModel(t *testing.T) {
	dir := t.TempDir()
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + strings.Repeat("pixels", 50))
	os.WriteFile(filepath.Join(dir, "p.png"), png, 0o644)
	ctx := context.Background()
	for _, tc := range []struct {
		toolset, tool string
		args          map[string]any
	}{
		{"claude", "Read", map[string]any{"file_path": "p.png"}},
		{"amazonq", "fs_read", map[string]any{"mode": "Image", "image_paths": []string{"p.png"}}},
		{"txedit", "fs_read", map[string]any{"mode": "Image", "image_paths": []string{"p.png"}}},
	} {
		cs := connect(t, dir, tc.toolset, false, nil)
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil || r.IsError {
			t.Fatalf("%s %s: %v %s", tc.toolset, tc.tool, err, text(r))
		}
		var images []*mcp.ImageContent
		for _, c := range r.Content {
			if ic, ok := c.(*mcp.ImageContent); ok {
				images = append(images, ic)
			}
		}
		if len(images) != 1 || images[0].MIMEType != "image/png" || !bytes.Equal(images[0].Data, png) {
			t.Errorf("%s %s: image blocks %d", tc.toolset, tc.tool, len(images))
		}
		if strings.Contains(text(r), "iVBORw0KGgo") || r.StructuredContent != nil {
			t.Errorf("%s %s: the base64 travels as text too (%d bytes of text, structured %v)", tc.toolset, tc.tool, len(text(r)), r.StructuredContent != nil)
		}
	}
}
