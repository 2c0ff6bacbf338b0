package clientconfig

import (
	"fmt"
	"path"
	"sort"
	"strings"
)

// The official MCP filesystem server's package and the binary it installs.
const (
	filesystemPackage = "@modelcontextprotocol/server-filesystem"
	filesystemBinary  = "mcp-server-filesystem"
)

// FilesystemEntry is an entry of a client's configuration that runs the
// official MCP filesystem server.
type FilesystemEntry struct {
	Name    string   // its key
	Command string   // as configured
	Args    []string // as configured
	// Dirs are the directories it allows (its arguments after the
	// package), as written. None: the server takes the client's roots.
	Dirs []string
	// Replaceable is false when txedit cannot serve the same directories
	// (Why says why: a container's paths, say).
	Replaceable bool
	Why         string
}

// FindFilesystem lists the entries of o's configuration file that run the
// official filesystem server (through npx, pnpm dlx, bunx, yarn dlx, node
// on its dist/index.js, or its mcp-server-filesystem binary; in Docker,
// noted as not replaceable), sorted by name. A missing file has none.
func FindFilesystem(o Options) ([]FilesystemEntry, error) {
	ch, f, err := start(o)
	if err != nil {
		return nil, err
	}
	if !f.exists || blank(f.data) {
		return nil, nil
	}
	d, err := parse(f.data, o.Client.JSONC)
	if err != nil {
		return nil, &MalformedError{Path: ch.Path, Err: err}
	}
	m, _, _, err := d.walk([]string{o.Client.Key})
	if err != nil {
		return nil, &MalformedError{Path: ch.Path, Err: err}
	}
	if m == nil || m.val.kind != '{' {
		return nil, nil
	}
	var out []FilesystemEntry
	for _, mem := range m.val.members {
		e, ok := d.decode(mem.val).(map[string]any)
		if !ok {
			continue
		}
		if fe, ok := filesystemEntry(mem.key, e); ok {
			out = append(out, fe)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// filesystemEntry recognises an entry of the official server and finds
// its directories.
func filesystemEntry(name string, e map[string]any) (FilesystemEntry, bool) {
	cmd, _ := e["command"].(string)
	var args []string
	if a, ok := e["args"].([]any); ok {
		for _, x := range a {
			s, ok := x.(string)
			if !ok {
				return FilesystemEntry{}, false
			}
			args = append(args, s)
		}
	}
	fe := FilesystemEntry{Name: name, Command: cmd, Args: args}
	if base := path.Base(strings.ReplaceAll(cmd, `\`, "/")); strings.TrimSuffix(base, ".cmd") == filesystemBinary {
		fe.Dirs, fe.Replaceable = args, true
		return fe, true
	}
	for i, a := range args {
		if a == filesystemPackage || strings.HasPrefix(a, filesystemPackage+"@") || strings.HasSuffix(strings.ReplaceAll(a, `\`, "/"), "server-filesystem/dist/index.js") {
			fe.Dirs, fe.Replaceable = append([]string(nil), args[i+1:]...), true
			break
		}
		if strings.Contains(a, "mcp/filesystem") || strings.Contains(a, "server-filesystem") && strings.HasPrefix(path.Base(cmd), "docker") {
			fe.Why = "it runs the server in a container, whose directories are mounts of the host's: replace it by hand with txedit mcp --toolset filesystem and the host directories"
			return fe, true
		}
	}
	if !fe.Replaceable {
		return FilesystemEntry{}, false
	}
	return fe, true
}

// ReplaceFilesystem rewrites entry fe (o.Name is ignored) to run
// o.Server instead, keeping its name and every other key it has (env,
// disabled, …): the client then starts txedit where it started the
// official server.
func ReplaceFilesystem(o Options, fe FilesystemEntry) (*Change, error) {
	if !fe.Replaceable {
		return nil, fmt.Errorf("the %s server cannot be replaced: %s", fe.Name, fe.Why)
	}
	o.Name = fe.Name
	return Install(o)
}
