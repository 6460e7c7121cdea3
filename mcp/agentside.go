package mcp

import (
	"path/filepath"

	"github.com/hitlbot/hitl"
)

// AgentSide completes an operation where only the agent's machine can:
// the agent's home directory (~ in a command line or path is decided as
// it), and for a file operation the path with its symlinks resolved
// (a link in an allowed directory pointing at ~/.ssh is decided as what
// it points at). cwd places a relative path. The hooks, hitl gate and the
// MCP server run beside the agent and call it before asking hitl.
func AgentSide(op hitl.Operation, home, cwd string) hitl.Operation {
	if filepath.IsAbs(home) {
		op.Home = filepath.Clean(home)
	}
	switch op.Type {
	case hitl.OpFileRead, hitl.OpFileWrite, hitl.OpFileDelete:
		if op.Resource != "" {
			op.Resource = resolvePath(op.Resource, cwd)
		}
	}
	return op
}

// resolvePath resolves the symlinks of p's longest existing prefix (a
// file about to be written need not exist yet). A relative path is placed
// in cwd when cwd is absolute; otherwise it is left as it is.
func resolvePath(p, cwd string) string {
	if !filepath.IsAbs(p) {
		if !filepath.IsAbs(cwd) {
			return p
		}
		p = filepath.Join(cwd, p)
	}
	dir, rest := filepath.Clean(p), ""
	for {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return filepath.Clean(p)
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}
