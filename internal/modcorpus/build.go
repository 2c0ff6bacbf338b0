package modcorpus

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// Options says where Build works.
type Options struct {
	Out     string    // where the pairs go
	Cache   string    // downloads, unpacked releases, git objects; "" is DefaultCache()
	Log     io.Writer // progress; nil is silent
	Modules []Module  // nil is Modules
}

// Pair is one diff of the corpus, as index.tsv lists it.
type Pair struct {
	Module, Old, New string
	Dir              string // relative to the corpus directory
	// From the diff: file sections, renames, sections whose lines carry
	// "\r" (CRLF files), binary patches, mode changes.
	Files, Renames, CRLF, Binary, Modes int
}

// DefaultCache is $TXEDIT_MODCORPUS_CACHE, else txedit-modcorpus in the
// user's cache directory.
func DefaultCache() string {
	if d := os.Getenv("TXEDIT_MODCORPUS_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "txedit-modcorpus")
	}
	return filepath.Join(os.TempDir(), "txedit-modcorpus")
}

// Build makes the corpus in o.Out (see the package comment) and returns
// its pairs. What is already there and complete is kept: a pair is complete
// once its diff is written, which is done last.
func Build(o Options) ([]Pair, error) {
	if o.Cache == "" {
		o.Cache = DefaultCache()
	}
	if o.Modules == nil {
		o.Modules = Modules
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	for _, tool := range []string{"go", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, fmt.Errorf("modcorpus needs %s", tool)
		}
	}
	for _, d := range []string{o.Out, o.Cache} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	var pairs []Pair
	for _, m := range o.Modules {
		ps, err := buildModule(o, m)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Path, err)
		}
		pairs = append(pairs, ps...)
	}
	return pairs, writeIndex(o.Out, pairs)
}

// buildModule makes the pairs of one module.
func buildModule(o Options, m Module) ([]Pair, error) {
	fmt.Fprintf(o.Log, "%s: %d releases\n", m.Path, len(m.Versions))
	zips, err := download(o.Cache, m)
	if err != nil {
		return nil, err
	}
	repo, err := gitRepo(o.Cache, m.Path)
	if err != nil {
		return nil, err
	}
	trees := make([]string, len(m.Versions))   // unpacked release directories
	objects := make([]string, len(m.Versions)) // their git tree objects
	for i, v := range m.Versions {
		if trees[i], err = unpack(o.Cache, m.Path, v, zips[v]); err != nil {
			return nil, err
		}
		if objects[i], err = treeObject(repo, v, trees[i]); err != nil {
			return nil, err
		}
	}
	var pairs []Pair
	for i := 1; i < len(m.Versions); i++ {
		p := Pair{Module: m.Path, Old: m.Versions[i-1], New: m.Versions[i]}
		p.Dir = path.Join(m.Path, p.Old+".."+p.New)
		diff, err := writePair(o.Out, p.Dir, trees[i-1], trees[i], repo, objects[i-1], objects[i])
		if err != nil {
			return nil, fmt.Errorf("%s..%s: %w", p.Old, p.New, err)
		}
		p.Files, p.Renames, p.CRLF, p.Binary, p.Modes = stats(diff)
		pairs = append(pairs, p)
	}
	return pairs, nil
}

// download fetches the module's releases through the go command (into the
// cache's module cache) and returns each release's zip file.
func download(cache string, m Module) (map[string]string, error) {
	args := []string{"mod", "download", "-json"}
	for _, v := range m.Versions {
		args = append(args, m.Path+"@"+v)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = cache // outside any module
	cmd.Env = append(os.Environ(), "GOMODCACHE="+filepath.Join(cache, "gomod"), "GOWORK=off", "GOFLAGS=-mod=mod")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	zips := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var d struct{ Version, Zip, Error string }
		if err := dec.Decode(&d); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go mod download: %v\n%s", err, stderr.Bytes())
		}
		if d.Error != "" {
			return nil, fmt.Errorf("go mod download %s: %s", d.Version, d.Error)
		}
		zips[d.Version] = d.Zip
	}
	for _, v := range m.Versions {
		if zips[v] == "" {
			return nil, fmt.Errorf("go mod download %s@%s: no zip (%v)\n%s", m.Path, v, runErr, stderr.Bytes())
		}
	}
	return zips, nil
}

// unpack extracts a release's zip into the cache once (to a temporary
// directory renamed into place) and returns the directory.
func unpack(cache, mod, version, zipFile string) (string, error) {
	dir := filepath.Join(cache, "trees", filepath.FromSlash(mod)+"@"+version)
	if _, err := os.Stat(dir); err == nil {
		return dir, nil
	}
	zr, err := zip.OpenReader(zipFile)
	if err != nil {
		return "", err
	}
	defer zr.Close()
	tmp := dir + ".tmp"
	os.RemoveAll(tmp)
	prefix := mod + "@" + version + "/"
	for _, f := range zr.File {
		name, ok := strings.CutPrefix(f.Name, prefix)
		if !ok || name == "" || strings.HasSuffix(name, "/") {
			continue
		}
		if !fs.ValidPath(name) {
			return "", fmt.Errorf("%s: bad name %q", zipFile, f.Name)
		}
		if err := extract(f, filepath.Join(tmp, filepath.FromSlash(name))); err != nil {
			return "", err
		}
	}
	return dir, os.Rename(tmp, dir)
}

func extract(f *zip.File, to string) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	r, err := f.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	w, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// gitRepo returns the module's bare repository in the cache, made on first
// use. Its attributes switch off everything .gitattributes files of the
// trees could ask for (line-end conversion, filters, textconv, "binary"),
// so the trees go in and the diffs come out byte for byte.
func gitRepo(cache, mod string) (string, error) {
	repo := filepath.Join(cache, "git", filepath.FromSlash(mod)+".git")
	if _, err := os.Stat(filepath.Join(repo, "HEAD")); err == nil {
		return repo, nil
	}
	if _, err := git(repo, "", "init", "-q", "--bare", repo); err != nil {
		return "", err
	}
	attrs := "* !text !eol !crlf !filter !ident !diff !working-tree-encoding\n"
	if err := os.MkdirAll(filepath.Join(repo, "info"), 0o755); err != nil {
		return "", err
	}
	return repo, os.WriteFile(filepath.Join(repo, "info", "attributes"), []byte(attrs), 0o644)
}

// treeObject adds a release's tree to the repository (once; the id is kept
// in trees/VERSION) and returns its tree object.
func treeObject(repo, version, tree string) (string, error) {
	keep := filepath.Join(repo, "trees", version)
	if id, err := os.ReadFile(keep); err == nil {
		return strings.TrimSpace(string(id)), nil
	}
	index := filepath.Join(repo, "index-"+version)
	defer os.Remove(index)
	env := []string{"GIT_INDEX_FILE=" + index}
	if _, err := gitEnv(repo, tree, env, "add", "--all", "--force", "."); err != nil { // --force: files a .gitignore of the tree names are files of the release too
		return "", err
	}
	out, err := gitEnv(repo, tree, env, "write-tree")
	if err != nil {
		return "", err
	}
	id := strings.TrimSpace(string(out))
	if err := os.MkdirAll(filepath.Dir(keep), 0o755); err != nil {
		return "", err
	}
	return id, os.WriteFile(keep, []byte(id+"\n"), 0o644)
}

// writePair writes a pair's directory: the trees (hard links to the
// unpacked releases) and, last, git's diff of the two. It returns the diff.
func writePair(out, dir, oldTree, newTree, repo, oldObj, newObj string) ([]byte, error) {
	full := filepath.Join(out, filepath.FromSlash(dir))
	diffFile := filepath.Join(full, "diff")
	if diff, err := os.ReadFile(diffFile); err == nil {
		return diff, nil
	}
	os.RemoveAll(full)
	for _, t := range []struct{ from, to string }{{oldTree, "old"}, {newTree, "new"}} {
		if err := linkTree(t.from, filepath.Join(full, t.to)); err != nil {
			return nil, err
		}
	}
	diff, err := git(repo, "", "diff", "-M", "--binary", "--no-color", "--no-ext-diff", "--no-textconv", oldObj, newObj)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(diffFile+".tmp", diff, 0o644); err != nil {
		return nil, err
	}
	return diff, os.Rename(diffFile+".tmp", diffFile)
}

// linkTree makes to a tree of hard links to from's files (copies where a
// link cannot be made).
func linkTree(from, to string) error {
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		if os.Link(p, dst) == nil {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
}

func git(repo, worktree string, args ...string) ([]byte, error) {
	return gitEnv(repo, worktree, nil, args...)
}

// gitEnv runs git on repo (and worktree, if any) with no user or system
// configuration, line ends never converted.
func gitEnv(repo, worktree string, env []string, args ...string) ([]byte, error) {
	pre := []string{"-c", "core.autocrlf=false", "-c", "core.safecrlf=false", "-c", "core.quotePath=true", "-c", "diff.noprefix=false",
		"-c", "diff.mnemonicPrefix=false", "-c", "diff.renameLimit=0", "-c", "core.fileMode=true"}
	if args[0] != "init" {
		pre = append(pre, "--git-dir="+repo)
		if worktree != "" {
			pre = append(pre, "--work-tree="+worktree)
		}
	}
	cmd := exec.Command("git", append(pre, args...)...)
	if worktree != "" {
		cmd.Dir = worktree
	}
	cmd.Env = append(os.Environ(), append([]string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull, "LC_ALL=C"}, env...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return out, nil
}

// stats counts what a diff holds: file sections, renames, sections with a
// line that carries "\r", binary patches, mode changes.
func stats(diff []byte) (files, renames, crlf, binary, modes int) {
	cr := false
	for len(diff) > 0 {
		l := diff
		if i := bytes.IndexByte(diff, '\n'); i >= 0 {
			l, diff = diff[:i], diff[i+1:]
		} else {
			diff = nil
		}
		switch {
		case bytes.HasPrefix(l, []byte("diff --git ")):
			files++
			cr = false
		case bytes.HasPrefix(l, []byte("rename from ")):
			renames++
		case bytes.Equal(l, []byte("GIT binary patch")) || bytes.HasPrefix(l, []byte("Binary files ")):
			binary++
		case bytes.HasPrefix(l, []byte("old mode ")):
			modes++
		case !cr && len(l) > 1 && (l[0] == ' ' || l[0] == '-' || l[0] == '+') && l[len(l)-1] == '\r':
			cr = true
			crlf++
		}
	}
	return
}

// writeIndex writes index.tsv: a header, then a line per pair.
func writeIndex(out string, pairs []Pair) error {
	var b strings.Builder
	b.WriteString("module\told\tnew\tdir\tfiles\trenames\tcrlf\tbinary\tmodes\n")
	for _, p := range pairs {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\n", p.Module, p.Old, p.New, p.Dir, p.Files, p.Renames, p.CRLF, p.Binary, p.Modes)
	}
	return os.WriteFile(filepath.Join(out, "index.tsv"), []byte(b.String()), 0o644)
}

// ReadIndex reads the pairs of a corpus built in dir.
func ReadIndex(dir string) ([]Pair, error) {
	data, err := os.ReadFile(filepath.Join(dir, "index.tsv"))
	if err != nil {
		return nil, err
	}
	var pairs []Pair
	for i, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Split(l, "\t")
		if i == 0 {
			continue
		}
		if len(f) != 9 {
			return nil, errors.New("index.tsv: a line without 9 fields")
		}
		p := Pair{Module: f[0], Old: f[1], New: f[2], Dir: f[3]}
		for j, dst := range []*int{&p.Files, &p.Renames, &p.CRLF, &p.Binary, &p.Modes} {
			if *dst, err = strconv.Atoi(f[4+j]); err != nil {
				return nil, fmt.Errorf("index.tsv line %d: %v", i+1, err)
			}
		}
		pairs = append(pairs, p)
	}
	return pairs, nil
}
