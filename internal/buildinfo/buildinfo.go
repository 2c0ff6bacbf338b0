// Package buildinfo tells which txedit this is: the module version, the
// VCS revision it was built from, the Go toolchain and the platform, all
// read from the build information the Go linker embeds in every binary.
//
// What is known depends on how the binary was built:
//
//   - go install github.com/txedit/txedit/cmd/txedit@v1.2.3: the version
//     is the tag (v1.2.3); a module download carries no VCS information,
//     so the revision is empty.
//   - go build in a git clone: the version is a pseudo-version made from
//     the commit (v0.0.0-20260102150405-abcdef123456, or the tag when
//     HEAD is tagged), "+dirty" when the tree had uncommitted changes, and
//     the revision, commit time and modified flag are set.
//   - go run, go test, or -buildvcs=false: the version is "(devel)".
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Devel is the version of a build that carries no version information.
const Devel = "(devel)"

// Info describes one build of txedit.
type Info struct {
	Module    string `json:"module"`             // the main module's path
	Version   string `json:"version"`            // a semantic version, a pseudo-version, or "(devel)"
	Revision  string `json:"revision,omitempty"` // the VCS commit, when the build knew it
	Time      string `json:"time,omitempty"`     // the commit's time (RFC 3339), when known
	Modified  bool   `json:"modified"`           // the working tree had uncommitted changes
	GoVersion string `json:"go"`                 // the toolchain that built the binary
	OS        string `json:"os"`
	Arch      string `json:"arch"`
}

// Read returns the running binary's build information.
func Read() Info {
	bi, _ := debug.ReadBuildInfo()
	return FromBuildInfo(bi)
}

// FromBuildInfo extracts an Info from bi, which may be nil (a binary
// built without module support). OS and architecture are the running
// program's.
func FromBuildInfo(bi *debug.BuildInfo) Info {
	in := Info{Version: Devel, GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	if bi == nil {
		return in
	}
	in.Module = bi.Main.Path
	if bi.Main.Version != "" {
		in.Version = bi.Main.Version
	}
	if bi.GoVersion != "" {
		in.GoVersion = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			in.Revision = s.Value
		case "vcs.time":
			in.Time = s.Value
		case "vcs.modified":
			in.Modified = s.Value == "true"
		}
	}
	return in
}

// Short is the version alone, as an MCP server reports it in its
// serverInfo: the module version, or for a development build with a known
// revision "(devel) REV12[+dirty]".
func (in Info) Short() string {
	if in.Version != Devel || in.Revision == "" {
		return in.Version
	}
	s := in.Version + " " + shortRev(in.Revision)
	if in.Modified {
		s += "+dirty"
	}
	return s
}

// String is the one line `txedit version` prints, e.g.
//
//	txedit v1.2.3 (revision 0123456789ab, 2026-01-02T15:04:05Z, modified) go1.26.8 linux/amd64
func (in Info) String() string {
	var b strings.Builder
	b.WriteString("txedit " + in.Version)
	var extra []string
	if in.Revision != "" {
		extra = append(extra, "revision "+shortRev(in.Revision))
	}
	if in.Time != "" {
		extra = append(extra, in.Time)
	}
	if in.Modified {
		extra = append(extra, "modified")
	}
	if len(extra) > 0 {
		b.WriteString(" (" + strings.Join(extra, ", ") + ")")
	}
	fmt.Fprintf(&b, " %s %s/%s", in.GoVersion, in.OS, in.Arch)
	return b.String()
}

// Version is Read().Short(): the version an MCP server reports.
func Version() string { return Read().Short() }

func shortRev(r string) string {
	if len(r) > 12 {
		return r[:12]
	}
	return r
}
