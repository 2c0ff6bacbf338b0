package tools

import (
	"context"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/internal/grep"
	"github.com/txedit/txedit/plan"
)

// grepText renders a grep result as ripgrep prints it: the one printer
// every dialect's search output comes from (context merged, "--" between
// groups, every line of a multiline match prefixed, head_limit and offset
// counting output lines). It returns the text, the number of lines and
// whether the limit cut it.
func grepText(res *plan.GrepResult, o grep.PrintOptions) (string, int, bool) {
	var b strings.Builder
	// Room for every line once, so that the text is not copied as it
	// grows (context shared by nearby matches makes this an upper bound).
	size := 0
	for _, f := range res.Files {
		size += len(f) + 1
	}
	for _, c := range res.Counts {
		size += len(c.Path) + 8
	}
	for _, m := range res.Matches {
		size += len(m.Text) + len(m.Path) + 12
		for _, l := range m.Before {
			size += len(l) + len(m.Path) + 12
		}
		for _, l := range m.After {
			size += len(l) + len(m.Path) + 12
		}
	}
	if o.HeadLimit == 0 {
		b.Grow(size)
	}
	n, cut := grep.Print(&b, res, o)
	return b.String(), n, cut
}

// Dialects name the arguments of engine errors their own way: an engine
// message says old_str where Claude Code's tools say old_string.
var (
	editPrefix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`: edit (\d+) \(([a-z_]+)\): `) })
	fieldWord  = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(old_str|new_str|file_text|replace_lines|fileEdits|content_hash|insert_line|start_line|end_line)\b`)
	})
)

// renamer rewrites an engine error message for a dialect: names maps the
// engine's argument names to the dialect's (a name not in it stays), and
// edit renders the position of a failing edit ("" drops it: a tool of one
// edit has no positions).
type renamer struct {
	names map[string]string
	edit  func(i int) string
}

func (r renamer) msg(s string) string {
	s = editPrefix().ReplaceAllStringFunc(s, func(m string) string {
		sub := editPrefix().FindStringSubmatch(m)
		i, _ := strconv.Atoi(sub[1])
		if r.edit == nil {
			return ": "
		}
		return ": " + r.edit(i) + ": "
	})
	return fieldWord().ReplaceAllStringFunc(s, func(w string) string {
		if n, ok := r.names[w]; ok {
			return n
		}
		return w
	})
}

// err returns err with its message rewritten, keeping its code.
func (r renamer) err(err error) error {
	if err == nil {
		return nil
	}
	pe := plan.As(err)
	msg := r.msg(pe.Error())
	// The message already carries "code: path: "; keep it whole.
	msg = strings.TrimPrefix(msg, string(pe.Code)+": ")
	return &plan.Error{Code: pe.Code, Index: plan.NoEdit, Msg: msg, Current: pe.Current}
}

// resultErr is the error of a failed write result: the first failing
// edit's (it says how to fix the edit), else the file's or the request's.
func resultErr(res *plan.Result) error {
	for _, f := range res.Files {
		for _, fe := range f.FailedEdits {
			return &plan.Error{Code: fe.Code, Index: plan.NoEdit, Msg: strings.TrimPrefix(fe.Error, string(fe.Code)+": "), Current: fe.CurrentHash}
		}
		if f.Error != "" {
			return &plan.Error{Code: f.Code, Index: plan.NoEdit, Msg: strings.TrimPrefix(f.Error, string(f.Code)+": ")}
		}
	}
	code := res.Code
	if code == "" {
		code = plan.CodeIOError
	}
	return &plan.Error{Code: code, Index: plan.NoEdit, Msg: strings.TrimPrefix(res.Error, string(code)+": ")}
}

// modTimes returns the modification times of root-relative files, read
// from their directories' listings (one listing per directory).
func modTimes(ctx context.Context, env *Env, files []string) map[string]time.Time {
	byDir := map[string]bool{}
	for _, f := range files {
		byDir[path.Dir(f)] = true
	}
	out := make(map[string]time.Time, len(files))
	for dir := range byDir {
		ents, err := env.W.List(ctx, dir, engine.ListOptions{})
		if err != nil {
			continue
		}
		for _, e := range ents {
			if t, err := time.Parse(time.RFC3339Nano, e.Modified); err == nil {
				out[e.Path] = t
			}
		}
	}
	return out
}

// relTo returns the root-relative p relative to the root-relative dir
// ("" or "." for the root).
func relTo(dir, p string) string {
	if dir == "" || dir == "." {
		return p
	}
	if p == dir {
		return "."
	}
	return strings.TrimPrefix(p, dir+"/")
}

// rootRel spells a path argument root-relative ("" for the root), as the
// engine resolves it when no symlink is involved.
func rootRel(env *Env, p string) string {
	if p == "" {
		return ""
	}
	if path.IsAbs(p) {
		root := strings.TrimSuffix(env.W.Root(), "/")
		if p == root {
			return ""
		}
		if rest, ok := strings.CutPrefix(p, root+"/"); ok {
			p = rest
		}
	}
	if p = path.Clean(p); p == "." {
		return ""
	}
	return p
}

// anchored makes a glob match whole paths below the directory it applies
// to (node-glob's and synaptic's sense), not names at any depth (the
// engine's sense of a pattern without "/").
func anchored(pattern string) string { return "/" + strings.TrimPrefix(pattern, "./") }
