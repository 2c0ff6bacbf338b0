module github.com/txedit/txedit

go 1.26.8

require (
	github.com/cespare/xxhash/v2 v2.3.0
	github.com/gobwas/glob v1.1.0
	github.com/hexops/gotextdiff v1.0.3
	github.com/rogpeppe/go-internal v1.16.0
	github.com/sourcegraph/conc v0.3.0
	golang.org/x/sys v0.49.0
	golang.org/x/term v0.47.0
)

require (
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/modelcontextprotocol/go-sdk v1.8.0 // indirect
	go.uber.org/atomic v1.7.0 // indirect
	go.uber.org/multierr v1.9.0 // indirect
	golang.org/x/tools v0.42.0 // indirect
)
