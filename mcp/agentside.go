package mcp

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/hitlbot/hitl/policy"
	"github.com/hitlbot/hitl/shell"
)

// AgentSide completes an operation where only the agent's machine can:
// the agent's home directory (~ in a command line or path is decided as
// it), and the paths it names with their symlinks resolved (a link in an
// allowed directory pointing at ~/.ssh is decided as what it points at):
// a file operation's path is replaced; a command line's files go in
// Paths. cwd places a relative path. The hooks, hitl gate and the
// MCP server run beside the agent and call it before asking hitl.
func AgentSide(op policy.Operation, home, cwd string) policy.Operation {
	if filepath.IsAbs(home) {
		op.Home = filepath.Clean(home)
	}
	if filepath.IsAbs(cwd) && op.Cwd == "" {
		op.Cwd = filepath.Clean(cwd)
	}
	switch op.Type {
	case policy.OpFileRead, policy.OpFileWrite, policy.OpFileDelete:
		if op.Resource != "" {
			named := op.Resource
			if filepath.IsAbs(cwd) && !filepath.IsAbs(named) {
				named = filepath.Join(cwd, named)
			}
			op.Resource = resolvePath(op.Resource, cwd)
			// The diffs name the file as the agent did: the path that
			// leads to the resource goes in Paths, so that the service
			// knows it for the operation's file (policy.Operation.Files).
			if named = filepath.Clean(named); named != op.Resource && filepath.IsAbs(op.Resource) && len(op.Diffs) > 0 {
				if op.Paths == nil {
					op.Paths = map[string]string{}
				}
				op.Paths[named] = op.Resource
			}
		}
	case policy.OpShell:
		// The line is sent as it is (it is what runs and what a person
		// sees); the files it names go with where they really are.
		l, err := shell.Parse(op.Resource)
		if err != nil {
			return op
		}
		for _, f := range l.Files(op.Home) {
			real := resolvePath(f, cwd)
			if real == f || !filepath.IsAbs(real) || len(op.Paths) >= 64 {
				continue
			}
			if op.Paths == nil {
				op.Paths = map[string]string{}
			}
			op.Paths[f] = real
		}
	}
	return op
}

// resolvePath resolves the symlinks of p: of its longest existing prefix,
// and of a dangling link after it (a file about to be written through a
// link need not exist yet). A relative path is placed in cwd when cwd is
// absolute; otherwise it is left as it is.
func resolvePath(p, cwd string) string {
	if !filepath.IsAbs(p) {
		if !filepath.IsAbs(cwd) {
			return p
		}
		p = filepath.Join(cwd, p)
	}
	p = filepath.Clean(p)
links:
	for n := 0; n < 40; n++ {
		dir, rest := p, ""
		for {
			if r, err := filepath.EvalSymlinks(dir); err == nil {
				if rest == "" {
					return r
				}
				first, remainder, _ := strings.Cut(rest, string(filepath.Separator))
				if target, err := os.Readlink(filepath.Join(r, first)); err == nil {
					if !filepath.IsAbs(target) {
						target = filepath.Join(r, target)
					}
					p = filepath.Join(target, remainder)
					continue links
				}
				return filepath.Join(r, rest)
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				return p
			}
			rest = filepath.Join(filepath.Base(dir), rest)
			dir = parent
		}
	}
	return p
}
