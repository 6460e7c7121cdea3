package main

import (
	"context"
	"flag"
	"fmt"
	"runtime/debug"
)

// version is hitl's version as the Go toolchain recorded it in the binary.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	return buildVersion(bi, ok)
}

// buildVersion is the main module's version (a tag or a pseudo-version
// when built with go install or from a checkout), or "(devel)" with the
// VCS revision (and "dirty" when the tree had changes) when the build
// recorded one.
func buildVersion(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
		return "(unknown)"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	v := "(devel)"
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev != "" {
		v += " " + rev
		if modified == "true" {
			v += " dirty"
		}
	}
	return v
}

func cmdVersion(_ context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	if pos, err := parseArgs(fs, args); err != nil {
		return err
	} else if len(pos) > 0 {
		return usageError(fs, "hitl version takes no arguments")
	}
	_, err := fmt.Fprintf(e.stdout, "hitl %s\n", version())
	return err
}
