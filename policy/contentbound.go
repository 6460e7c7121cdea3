package policy

import (
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/hitlbot/hitl"
)

// A learned rule for a line that runs a file the agent can change (a
// script, a test file, the Makefile) is bound to that file's content: the
// edge on the agent's machine hashes each file the command runs
// (Operation.Hashes, by the path as RunsFiles places it), the rule's key
// holds the hashes, and a changed file is another key, so it asks again.
// Without the hash of each (or FileAbsent for a file that is not there),
// the command is not learnable.

// ranFiles are the files named on c's line that it runs and the agent
// may write, as written: the program itself when it is a path
// (./run.sh), an interpreter's or a shell's script, pytest's test files.
// (What a command runs without naming it — make's Makefile, npm's
// package.json — is what a person trusts when teaching make test.)
func ranFiles(c ShellCommand) []ShellWord {
	if len(c.Args) == 0 {
		return nil
	}
	prog := c.Args[0]
	base := path.Base(prog.Value)
	var out []ShellWord
	if strings.Contains(prog.Value, "/") {
		out = append(out, prog)
	}
	firstOperand := func() {
		for _, w := range c.Args[1:] {
			if !strings.HasPrefix(w.Value, "-") {
				out = append(out, w)
				return
			}
		}
	}
	_, interp := interpreters[base]
	switch {
	case interp || strings.HasPrefix(base, "python3.") || shells[base]:
		firstOperand()
	case base == "pytest" || base == "py.test":
		for _, w := range c.Args[1:] {
			if !strings.HasPrefix(w.Value, "-") {
				out = append(out, w)
			}
		}
	}
	return out
}

// RunsFiles are the files the line's commands run that the agent may
// write, placed as the policy reads them: what an edge hashes (sha256,
// hex) into Operation.Hashes.
func (l *CommandLine) RunsFiles(home, cwd string) []string {
	ld := directories(l, home, cwd)
	var out []string
	for _, c := range l.Commands {
		for _, w := range ranFiles(c) {
			if p, ok := placedFile(w, home, cwd, ld); ok && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

func placedFile(w ShellWord, home, cwd string, ld lineDirs) (string, bool) {
	if !w.Literal {
		return "", false
	}
	fp, rs := place(w.Value, w.Tilde(), home, cwd, ld)
	if fp.unplaceable != "" || fp.homeUnknown || !path.IsAbs(fp.value) || len(rs) > 1 {
		return "", false
	}
	return fp.value, true
}

// learnKey is what a learned rule for c is found by: its canonical text,
// with the content of each file it runs ("  # runs PATH sha256:HEX"); ok
// is false when a file it runs has no hash from the edge: no learned rule
// may allow it then.
func learnKey(c ShellCommand, op hitl.Operation, ld lineDirs) (string, bool) {
	text := c.Text()
	files := ranFiles(c)
	if len(files) == 0 {
		return text, true
	}
	var bound []string
	for _, w := range files {
		p, ok := placedFile(w, op.Home, op.Cwd, ld)
		if !ok {
			return "", false
		}
		h, ok := op.Hashes[p]
		if !ok {
			return "", false
		}
		if h == hitl.FileAbsent {
			bound = append(bound, "  # runs no "+p)
			continue
		}
		bound = append(bound, "  # runs "+p+" sha256:"+h)
	}
	sort.Strings(bound)
	return text + strings.Join(bound, ""), true
}
