package buildinfo

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	platform := " " + runtime.GOOS + "/" + runtime.GOARCH
	tests := []struct {
		name        string
		bi          *debug.BuildInfo
		short, line string
		modified    bool
	}{
		{"no build info", nil, Devel, "txedit (devel) " + runtime.Version() + platform, false},
		{"go run", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/txedit/txedit", Version: Devel}},
			Devel, "txedit (devel) go1.26.8" + platform, false},
		{"test binary: empty version", &debug.BuildInfo{GoVersion: "go1.26.8"}, Devel, "txedit (devel) go1.26.8" + platform, false},
		{"go install @tag", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/txedit/txedit", Version: "v1.2.3"}},
			"v1.2.3", "txedit v1.2.3 go1.26.8" + platform, false},
		{"go build in a clone, dirty", &debug.BuildInfo{GoVersion: "go1.26.8",
			Main: debug.Module{Path: "github.com/txedit/txedit", Version: "v0.0.0-20260102150405-0123456789ab+dirty"},
			Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
				{Key: "vcs.time", Value: "2026-01-02T15:04:05Z"}, {Key: "vcs.modified", Value: "true"}}},
			"v0.0.0-20260102150405-0123456789ab+dirty",
			"txedit v0.0.0-20260102150405-0123456789ab+dirty (revision 0123456789ab, 2026-01-02T15:04:05Z, modified) go1.26.8" + platform, true},
		{"devel with a revision (older toolchains)", &debug.BuildInfo{GoVersion: "go1.23.0", Main: debug.Module{Version: Devel},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "fedcba9876543210"}, {Key: "vcs.modified", Value: "false"}}},
			"(devel) fedcba987654", "txedit (devel) (revision fedcba987654) go1.23.0" + platform, false},
		{"devel, dirty", &debug.BuildInfo{GoVersion: "go1.23.0", Main: debug.Module{Version: Devel},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}}},
			"(devel) abc+dirty", "txedit (devel) (revision abc, modified) go1.23.0" + platform, true},
	}
	for _, tc := range tests {
		in := FromBuildInfo(tc.bi)
		if got := in.Short(); got != tc.short {
			t.Errorf("%s: Short() = %q, want %q", tc.name, got, tc.short)
		}
		if got := in.String(); got != tc.line {
			t.Errorf("%s: String() = %q, want %q", tc.name, got, tc.line)
		}
		if in.Modified != tc.modified {
			t.Errorf("%s: Modified = %v, want %v", tc.name, in.Modified, tc.modified)
		}
		if in.OS != runtime.GOOS || in.Arch != runtime.GOARCH {
			t.Errorf("%s: platform %s/%s", tc.name, in.OS, in.Arch)
		}
	}
}

func TestReadInTest(t *testing.T) {
	// A test binary has build info; whatever its version, Read must not
	// come back empty.
	in := Read()
	if in.Version == "" || in.GoVersion == "" || in.OS == "" {
		t.Fatalf("Read() = %+v", in)
	}
	if Version() != in.Short() {
		t.Fatalf("Version() = %q, Short() = %q", Version(), in.Short())
	}
}
