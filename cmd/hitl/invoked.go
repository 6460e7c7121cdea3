package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
)

// self is how the person runs hitl, as the hints hitl prints spell it
// ("answer it with: ./hitl answer q_…"): set once, from os.Args[0], by
// main (invokedAs); "hitl" until then.
var self atomic.Pointer[string]

// hint is a command line for the person to run: how they ran hitl, then
// args.
func hint(args string) string {
	if p := self.Load(); p != nil {
		return *p + " " + args
	}
	return "hitl " + args
}

// invokedAs is how hints name hitl when it was started as arg0: "hitl"
// when it was found on PATH (no slash), when arg0 is the hitl that PATH
// finds, or when it is a binary `go run` built (a temporary path nobody
// types); otherwise arg0 as typed, "./hitl" or "bin/hitl", which works
// again from the same directory. lookPath is exec.LookPath (injected for
// tests).
func invokedAs(arg0 string, lookPath func(string) (string, error)) string {
	if !strings.ContainsRune(arg0, os.PathSeparator) {
		return "hitl"
	}
	if strings.Contains(filepath.ToSlash(arg0), "/go-build") {
		return "hitl"
	}
	if p, err := lookPath("hitl"); err == nil && sameFile(p, arg0) {
		return "hitl"
	}
	return arg0
}

func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}
