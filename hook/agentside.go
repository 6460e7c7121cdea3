package hook

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/shell"
)

// AgentSide completes an operation where only the agent's machine can:
// the agent's home directory (~ in a command line or path is decided as
// it) and working directory (a relative path is placed in it), whether
// its filesystem folds case (macOS), and the paths it names with their
// symlinks resolved as the kernel does, .. after the links (a link in an
// allowed directory pointing at ~/.ssh is decided as what it points at):
// a file operation's path is replaced; a command line's files go in
// Paths, keyed as policy.CommandLine.PathKeys places them, and what its
// git commands' configuration runs in GitConfig, and the content of each
// file it runs that the agent may change in Hashes. The hooks,
// hitl gate and the MCP server run beside the agent and call it before
// asking hitl.
func AgentSide(op hitl.Operation, home, cwd string) hitl.Operation {
	if filepath.IsAbs(home) {
		op.Home = filepath.Clean(home)
	}
	if filepath.IsAbs(cwd) && op.Cwd == "" {
		op.Cwd = filepath.Clean(cwd)
	}
	op.FoldCase = op.FoldCase || foldsCase
	switch op.Type {
	case hitl.OpFileRead, hitl.OpFileWrite, hitl.OpFileDelete:
		if op.Resource == "" && op.Recursive && op.Cwd != "" {
			op.Resource = op.Cwd // Grep and Glob without a path search the working directory
		}
		if op.Resource != "" && !strings.HasPrefix(op.Resource, "~") {
			named := op.Resource
			if filepath.IsAbs(cwd) && !filepath.IsAbs(named) {
				named = filepath.Join(cwd, named)
			}
			op.Resource = resolvePath(op.Resource, cwd)
			// The diffs name the file as the agent did: the path that
			// leads to the resource goes in Paths, so that the service
			// knows it for the operation's file (as policy.ValidateOperation reads its files).
			if named = filepath.Clean(named); named != op.Resource && filepath.IsAbs(op.Resource) && len(op.Diffs) > 0 {
				if op.Paths == nil {
					op.Paths = map[string]string{}
				}
				op.Paths[named] = op.Resource
			}
		}
	case hitl.OpShell:
		// The line is sent as it is (it is what runs and what a person
		// sees); the files it names go with where they really are.
		l, err := shell.Parse(op.Resource)
		if err != nil {
			return op
		}
		for _, d := range l.GitDirs(op.Home, op.Cwd) {
			for _, e := range gitConfigRuns(d) {
				if !slices.Contains(op.GitConfig, e) && len(op.GitConfig) < 64 {
					op.GitConfig = append(op.GitConfig, e)
				}
			}
		}
		for _, f := range l.RunsFiles(op.Home, op.Cwd) {
			if h, ok := hashFile(f); ok && len(op.Hashes) < 64 {
				if op.Hashes == nil {
					op.Hashes = map[string]string{}
				}
				op.Hashes[f] = h
			}
		}
		for _, f := range l.PathKeys(op.Home, op.Cwd) {
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

// foldsCase: the agent's filesystem matches names without case (macOS's
// default APFS volume).
var foldsCase = runtime.GOOS == "darwin" || runtime.GOOS == "windows"

// resolvePath resolves p as the kernel does: component by component, each
// symlink replaced by its target where it is met, and .. taken from the
// directory reached so far (so dir-link/.. is the link target's parent,
// not dir). A path through /proc/PID is left as it is (the edge's own
// process is not the command's). Past the first name that does not exist the rest is cleaned
// as written (a file about to be written through a dangling link is
// placed where the link leads). A relative path is placed in cwd when
// cwd is absolute; otherwise it is left as it is.
func resolvePath(p, cwd string) string {
	if !filepath.IsAbs(p) {
		if !filepath.IsAbs(cwd) {
			return p
		}
		p = cwd + string(filepath.Separator) + p
	}
	sep := string(filepath.Separator)
	rest := strings.Split(p, sep)
	done := sep
	links := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			done = filepath.Dir(done)
			continue
		}
		if done == "/proc" && (c == "self" || c == "thread-self" || strings.Trim(c, "0123456789") == "") {
			return p // what /proc/self is here is the hook's, not the command's: the policy asks
		}
		next := filepath.Join(done, c)
		fi, err := os.Lstat(next)
		if err != nil {
			return filepath.Join(append([]string{next}, rest...)...)
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			done = next
			continue
		}
		links++
		target, err := os.Readlink(next)
		if err != nil || links > 40 {
			return filepath.Join(append([]string{next}, rest...)...)
		}
		if filepath.IsAbs(target) {
			done = sep
		}
		rest = append(strings.Split(target, sep), rest...)
	}
	return done
}

// hashFile is the sha256 of the file at p (through its links), or
// policy.FileAbsent when nothing is there; false when it cannot be read
// (a learned rule then cannot be bound to it, so the line is not
// learnable).
func hashFile(p string) (string, bool) {
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return hitl.FileAbsent, true
	}
	if err != nil {
		return "", false
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", false
	}
	return hex.EncodeToString(h.Sum(nil)), true
}
