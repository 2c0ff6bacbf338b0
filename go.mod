module github.com/txedit/txedit

go 1.26.8

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/gobwas/glob v1.1.0 // indirect
	github.com/google/renameio/v2 v2.0.2 // indirect
	github.com/hexops/gotextdiff v1.0.3 // indirect
	github.com/rogpeppe/go-internal v1.16.0 // indirect
	github.com/sourcegraph/conc v0.3.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/term v0.47.0 // indirect
)
