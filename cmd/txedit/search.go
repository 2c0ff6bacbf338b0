package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/internal/grep"
	"github.com/txedit/txedit/plan"
)

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func readCmd() *command {
	return &command{
		name: "read",
		run: func(ctx context.Context, e *env, args []string) int {
			if len(args) > 1 {
				return e.usageErr("read takes at most one request file")
			}
			data, err := readInput(e, args)
			if err != nil {
				return e.fail(err)
			}
			req, err := plan.ParseRead(data)
			if err != nil {
				return e.fail(err)
			}
			w, err := e.open(&engine.Options{ReadOnly: true})
			if err != nil {
				return e.fail(err)
			}
			defer w.Close()
			// Results stream out in request order as they are read, so a
			// batch read of a whole tree never sits in memory.
			out := bufio.NewWriterSize(e.stdout, 256<<10)
			defer out.Flush()
			array := !(len(req.Paths) == 0 && len(req.ImagePaths) <= 1)
			n, failed := 0, false
			if e.json && array {
				out.WriteString("[\n")
			}
			type encoded struct {
				r    *plan.ReadResult
				json []byte
			}
			// Results are encoded on the reading goroutines, in parallel.
			encode := func(r *plan.ReadResult) encoded {
				if !e.json {
					return encoded{r: r}
				}
				return encoded{r: r, json: r.AppendJSON(nil)}
			}
			err = engine.ReadEachMapped(ctx, w, req, encode, func(x encoded) error {
				failed = failed || !x.r.Success
				if e.json {
					if n > 0 {
						out.WriteString(",\n")
					}
					out.Write(x.json)
				} else {
					printRead(out, e, x.r, array)
				}
				n++
				return nil
			})
			if err != nil {
				out.Flush()
				return e.fail(err)
			}
			if e.json {
				if array {
					out.WriteString("\n]")
				}
				out.WriteString("\n")
			}
			if failed {
				return 1
			}
			return 0
		},
	}
}

func printRead(out *bufio.Writer, e *env, r *plan.ReadResult, many bool) {
	if many {
		fmt.Fprintf(out, "==> %s <==\n", r.Path)
	}
	if !r.Success {
		out.Flush()
		fmt.Fprintf(e.stderr, e.pfx()+"%s\n", r.Error)
		return
	}
	for _, img := range r.Images {
		fmt.Fprintf(out, "%s: %s, %d bytes of base64\n", img.Path, img.MediaType, len(img.Data))
	}
	out.WriteString(r.Content)
	if r.Content != "" && !strings.HasSuffix(r.Content, "\n") {
		out.WriteString("\n")
	}
}

func readInput(e *env, args []string) ([]byte, error) {
	var data []byte
	var err error
	if len(args) == 0 || args[0] == "-" {
		data, err = io.ReadAll(e.stdin)
	} else {
		data, err = os.ReadFile(args[0])
	}
	if err != nil {
		// A request that cannot be read is not a bad request: say why.
		code := plan.CodeOf(err)
		if errors.Is(err, fs.ErrNotExist) {
			code = plan.CodeFileNotFound
		}
		return nil, plan.Wrapf(code, "", err, "reading the request: %v", err)
	}
	return data, nil
}

func grepCmd() *command {
	var req plan.GrepRequest
	var globs multiFlag
	var files, count, lineNums, noLineNums bool
	var ctxLines int
	return &command{
		name: "grep",
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&req.IgnoreCase, "i", false, "case-insensitive")
			fs.BoolVar(&lineNums, "n", false, "show line numbers (the default on a terminal)")
			fs.BoolVar(&noLineNums, "N", false, "hide line numbers")
			fs.IntVar(&req.After, "A", 0, "lines of context after each match")
			fs.IntVar(&req.Before, "B", 0, "lines of context before each match")
			fs.IntVar(&ctxLines, "C", 0, "lines of context around each match")
			fs.BoolVar(&files, "l", false, "print only the names of files with matches")
			fs.BoolVar(&count, "c", false, "print the number of matching lines per file")
			fs.Var(&globs, "g", "include (or, with !, exclude) files matching this glob; repeatable")
			fs.StringVar(&req.Type, "t", "", "search only files of this type (go, py, js, ts, rust, …)")
			fs.BoolVar(&req.Multiline, "U", false, "let matches span lines")
			fs.BoolVar(&req.Literal, "F", false, "the pattern is a fixed string, not a regex")
			fs.BoolVar(&req.Hidden, "hidden", false, "search dot-files too")
			fs.BoolVar(&req.NoIgnore, "no-ignore", false, "do not honour .gitignore and .ignore")
			fs.IntVar(&req.HeadLimit, "head-limit", 0, "print at most N entries")
		},
		run: func(ctx context.Context, e *env, args []string) int {
			if len(args) < 1 || len(args) > 2 {
				return e.usageErr("usage: txedit grep [flags] PATTERN [PATH]")
			}
			req.Pattern = args[0]
			if len(args) == 2 {
				req.Path = args[1]
			}
			req.Globs, req.Context = globs, ctxLines
			switch {
			case files:
				req.OutputMode = plan.OutputFiles
			case count:
				req.OutputMode = plan.OutputCount
			default:
				req.OutputMode = plan.OutputContent
			}
			w, err := e.open(&engine.Options{ReadOnly: true})
			if err != nil {
				return e.fail(err)
			}
			defer w.Close()
			res, err := w.Grep(ctx, &req)
			if err != nil {
				return e.fail(err)
			}
			found := len(res.Files)+len(res.Counts)+len(res.Matches) > 0
			if e.json {
				e.printJSON(res)
			} else {
				showNums := (lineNums || isTerminal(e.stdout)) && !noLineNums
				single := req.Path != "" && len(res.Matches) > 0 && allSamePath(res.Matches) && !isDirArg(w, req.Path)
				// One write per 64 KiB, not one per line.
				out := bufio.NewWriterSize(e.stdout, 64<<10)
				grep.Print(out, res, grep.PrintOptions{LineNumbers: showNums, NoPath: single, Context: req.Before+req.After+req.Context > 0})
				out.Flush()
				if res.Truncated {
					fmt.Fprintf(e.stderr, e.pfx()+"output cut at %d entries (--head-limit)\n", req.HeadLimit)
				}
			}
			if !found {
				return 1 // as grep and rg: nothing matched
			}
			return 0
		},
	}
}

// compactJSON encodes the results that have their own encoders (much
// faster than encoding/json's for big texts) compactly; false for others.
func compactJSON(v any) ([]byte, bool) {
	switch r := v.(type) {
	case *plan.GrepResult:
		if r == nil {
			return nil, false
		}
		return r.AppendJSON(nil), true
	case *plan.GlobResult:
		if r == nil {
			return nil, false
		}
		return r.AppendJSON(nil), true
	case *plan.ReadResult:
		if r == nil {
			return nil, false
		}
		return r.AppendJSON(nil), true
	case interface{ AppendJSON([]byte) []byte }: // a dialect's result (tools.ToolResult)
		return r.AppendJSON(nil), true
	}
	return nil, false
}

func isDirArg(w *engine.Workspace, p string) bool {
	fi, err := os.Stat(p)
	if !strings.HasPrefix(p, "/") {
		fi, err = os.Stat(w.Root() + "/" + p)
	}
	return err == nil && fi.IsDir()
}

func allSamePath(ms []*plan.Match) bool {
	for _, m := range ms {
		if m.Path != ms[0].Path {
			return false
		}
	}
	return true
}

func globCmd() *command {
	var o engine.GlobOptions
	return &command{
		name: "glob",
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&o.Hidden, "hidden", false, "include dot-files")
			fs.BoolVar(&o.NoIgnore, "no-ignore", false, "do not honour .gitignore and .ignore")
			fs.IntVar(&o.Limit, "limit", 0, "print at most N paths")
		},
		run: func(ctx context.Context, e *env, args []string) int {
			if len(args) < 1 || len(args) > 2 {
				return e.usageErr("usage: txedit glob PATTERN [PATH]")
			}
			o.Pattern = args[0]
			if len(args) == 2 {
				o.Path = args[1]
			}
			w, err := e.open(&engine.Options{ReadOnly: true})
			if err != nil {
				return e.fail(err)
			}
			defer w.Close()
			res, err := w.Glob(ctx, o)
			if err != nil {
				return e.fail(err)
			}
			if e.json {
				e.printJSON(res)
			} else {
				out := bufio.NewWriterSize(e.stdout, 64<<10)
				for _, f := range res.Files {
					out.WriteString(f)
					out.WriteByte('\n')
				}
				out.Flush()
			}
			if len(res.Files) == 0 {
				return 1
			}
			return 0
		},
	}
}
