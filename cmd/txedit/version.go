package main

import (
	"context"
	"fmt"

	"github.com/txedit/txedit/internal/buildinfo"
)

// versionCmd prints which txedit this is (also `txedit --version`).
func versionCmd() *command {
	return &command{
		name:  "version",
		plain: true,
		run: func(ctx context.Context, e *env, args []string) int {
			if len(args) > 0 {
				return e.usageErr("version takes no arguments")
			}
			in := buildinfo.Read()
			if e.json {
				e.printJSON(in)
			} else {
				fmt.Fprintln(e.stdout, in.String())
			}
			return 0
		},
	}
}
