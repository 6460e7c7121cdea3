package sandbox_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/sandbox"
	"github.com/stretchr/testify/require"
)

// TestArgs: a grant's places are found on this machine, and what is not
// here is granted nothing.
func TestArgs(t *testing.T) {
	repo := t.TempDir()
	sub := filepath.Join(repo, "sub")
	require.NoError(t, os.MkdirAll(filepath.Join(repo, ".git"), 0o755))
	require.NoError(t, os.MkdirAll(sub, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(sub, "Makefile"), []byte("test:\n\t@echo ok && ls\n\t-FOO=1 cat x\nother: ; true\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(sub, "package.json"), []byte(`{"scripts": {"test": "node t.js | head -1"}}`), 0o644))
	getenv := func(k string) string {
		return map[string]string{"PATH": os.Getenv("PATH"), "TMPDIR": repo, "HOME": repo, "GOCACHE": sub}[k]
	}
	g := &hitl.CommandGrant{Exec: []string{"ls", "no-such-program-hitl"}, Write: []string{"out.txt", "nodir/x.txt", "/abs.txt"},
		DenyRead: []string{"/root/.ssh"}, Net: []string{"example.com:443"},
		Adds: []hitl.GrantAdd{{Exec: []string{"{scripts}", "{tmp}"}, Write: []string{"{gitdir}", "{worktree}", "{gocache}", "{npmcache}"}}}}
	want := []string{"--exec", "ls", "--write", "out.txt", "--write", "/abs.txt", "--deny-read", "/root/.ssh", "--net", "example.com:443",
		"--exec", "echo", "--exec", "cat", "--exec", "node", "--exec", "head", "--exec", repo,
		"--write", filepath.Join(repo, ".git"), "--write", repo, "--write", sub}
	require.ElementsMatch(t, want, sandbox.Args(g, sub, getenv), "a program not here, a file in no directory, ~/.npm that is not there: left out")
	require.Nil(t, sandbox.Args(nil, sub, getenv))
	t.Run("a worktree's .git file names its git directory", func(t *testing.T) {
		wt := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+filepath.Join(repo, ".git")+"\n"), 0o644))
		args := sandbox.Args(&hitl.CommandGrant{Adds: []hitl.GrantAdd{{Write: []string{"{gitdir}"}}}}, wt, getenv)
		require.Equal(t, []string{"--write", filepath.Join(repo, ".git")}, args)
	})
}
