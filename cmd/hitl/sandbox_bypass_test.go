package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/policy"
	"github.com/hitlbot/hitl/sandbox"
	"github.com/hitlbot/hitl/shell"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// The kernel layer under the decider: each bypass class the attacks on
// the shell decider found is forced through here, as if the decider had
// allowed the line with the grant of its VISIBLE parts, and the kernel
// must stop the hidden part while the visible part still happens.

// grantArgs are `hitl sandbox`'s flags for the grant of visible (a line as
// the decider read it), in dir.
func grantArgs(t *testing.T, rules []hitl.Rule, visible, dir string) []string {
	t.Helper()
	g := policy.Decider{Rules: rules, Parse: shell.Parse}.GrantFor(hitl.Operation{Type: hitl.OpShell, Resource: visible, Home: os.Getenv("HOME")})
	require.NotNil(t, g, "%s has a grant", visible)
	return sandbox.Args(g, dir, os.Getenv)
}

// underGrant runs line under bash in dir, held by the grant of visible:
// what the hook's rewritten Bash call runs.
func underGrant(t *testing.T, hitl, dir string, rules []hitl.Rule, visible, line string) cliResult {
	t.Helper()
	argv := append([]string{hitl, "sandbox", "--quiet"}, grantArgs(t, rules, visible, dir)...)
	return runChild(t, dir, nil, append(argv, "--", "bash", "-c", line)...)
}

// bypassFixture is a directory with a program the hidden parts try to
// run (./evil prints RAN-EVIL on stdout and stderr), a file, a secret
// directory deny rules protect, a symlink into it and one to a file
// outside the grant.
func bypassFixture(t *testing.T) (dir, secret, victim string) {
	t.Helper()
	dir = t.TempDir()
	secret = filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.MkdirAll(secret, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(secret, "key"), []byte("SECRET-KEY\n"), 0o644))
	victim = filepath.Join(t.TempDir(), "victim.txt")
	require.NoError(t, os.WriteFile(victim, []byte("untouched\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "evil"), []byte("#!/bin/sh\necho RAN-EVIL\necho RAN-EVIL >&2\n"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("b\na\n"), 0o644))
	require.NoError(t, os.Symlink(secret, filepath.Join(dir, "keys")))
	require.NoError(t, os.Symlink(victim, filepath.Join(dir, "out-link")))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	return dir, secret, victim
}

func TestKernelStopsHiddenParts(t *testing.T) {
	needLandlock(t)
	bin := hitlProgram(t)
	dir, secret, victim := bypassFixture(t)
	rules := []hitl.Rule{{Name: "no-secret", OpType: hitl.OpFileRead, Resource: secret + "/*", Effect: hitl.EffectDeny}}
	noEvil := func(t *testing.T, r cliResult) {
		t.Helper()
		assert.NotContains(t, r.stdout+r.stderr, "RAN-EVIL", "the hidden program did not run")
	}
	for _, tc := range []struct {
		class, visible, line, want string
	}{
		{"compound commands", "sort notes.txt", "sort notes.txt; ./evil", "a\nb\n"},
		{"compound commands: a background job", "sort notes.txt", "./evil & sort notes.txt; wait", "a\nb\n"},
		{"hidden constructs: a command substitution", "echo hi", "echo hi $(./evil)", "hi\n"},
		{"hidden constructs: a process substitution", "sort notes.txt", "sort notes.txt <(./evil)", "a\nb\n"},
		{"hidden constructs: an expansion's default", "echo hi", "echo hi ${X:-$(./evil)}", "hi\n"},
		{"arguments that run code: find -exec", "find . -name notes.txt -print", "find . -name notes.txt -print -exec ./evil ';'", "./notes.txt\n"},
		{"backslash-newline", "echo hi", "echo hi \\\n; ./evil", "hi\n"},
	} {
		t.Run(tc.class+": the program did not run", func(t *testing.T) {
			r := underGrant(t, bin, dir, rules, tc.visible, tc.line)
			noEvil(t, r)
			assert.Equal(t, tc.want, r.stdout, "the visible part happened: %s", r.stderr)
		})
	}
	for _, tc := range []struct {
		class, visible, line, file, want string
	}{
		{"arguments that write: sort -o", "sort notes.txt", "sort -o sorted.txt notes.txt; sort notes.txt", "sorted.txt", "a\nb\n"},
		{"arguments that write: tee", "sort notes.txt | tee", "sort notes.txt | tee teed.txt", "teed.txt", "a\nb\n"},
		{"hidden redirection after backslash-newline", "sort notes.txt", "sort notes.txt \\\n> hidden.txt; sort notes.txt", "hidden.txt", "a\nb\n"},
		{"paths through ..: a write beside the granted one", "sort notes.txt > sub/ok.txt; cat sub/ok.txt", "sort notes.txt > sub/ok.txt; cat sub/ok.txt; echo x > sub/../escaped.txt", "escaped.txt", "a\nb\n"},
	} {
		t.Run(tc.class+": the file was not written", func(t *testing.T) {
			r := underGrant(t, bin, dir, rules, tc.visible, tc.line)
			assert.Equal(t, tc.want, r.stdout, "the visible part happened: %s", r.stderr)
			assert.NoFileExists(t, filepath.Join(dir, tc.file))
		})
	}
	t.Run("symlinks: a write through a link to a file outside the grant", func(t *testing.T) {
		r := underGrant(t, bin, dir, rules, "sort notes.txt", "sort notes.txt; echo pwned > out-link")
		assert.Equal(t, "a\nb\n", r.stdout, r.stderr)
		b, err := os.ReadFile(victim)
		require.NoError(t, err)
		assert.Equal(t, "untouched\n", string(b))
	})
	for _, tc := range []struct{ class, path string }{
		{"a denied path", secret + "/key"},
		{"paths through .. and a symlink", "sub/../keys/../secret/key"},
		{"a symlink into a denied path", "keys/key"},
		{"/proc/self/root", "/proc/self/root" + secret + "/key"},
		{"/proc/self/cwd and a symlink", "/proc/self/cwd/keys/key"},
	} {
		t.Run(tc.class+": the file was not read", func(t *testing.T) {
			r := underGrant(t, bin, dir, rules, "cat notes.txt", "cat notes.txt; cat "+tc.path)
			assert.Equal(t, "b\na\n", r.stdout, r.stderr)
			assert.NotContains(t, r.stdout, "SECRET")
			assert.Contains(t, r.stderr, "Permission denied")
		})
	}
	t.Run("repository config that runs programs: core.fsmonitor, diff.external, core.pager, an alias", func(t *testing.T) {
		repo := gitFixture(t)
		evil := filepath.Join(dir, "evil")
		for _, kv := range [][2]string{{"core.fsmonitor", evil}, {"diff.external", evil}, {"core.pager", evil}, {"alias.st", "!" + evil}} {
			git(t, repo, "config", kv[0], kv[1])
		}
		r := underGrant(t, bin, repo, rules, "git status --short", "git status --short")
		noEvil(t, r)
		assert.Equal(t, " M README.md\n", r.stdout, "git status still reports: %s", r.stderr)
		r = underGrant(t, bin, repo, rules, "git diff", "git -c core.pager=cat diff --stat; git st")
		noEvil(t, r)
		without := runChild(t, repo, nil, "bash", "-c", "git status --short")
		assert.Contains(t, without.stdout+without.stderr, "RAN-EVIL", "without the grant the config runs it: the test can fail")
	})
	t.Run("no connection: /dev/tcp hidden after a visible command", func(t *testing.T) {
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		require.NoError(t, err)
		defer ln.Close()
		// queued reports whether a connection waits in the listener's
		// queue (connect returns once it is there), taking it
		queued := func() bool {
			raw, err := ln.(*net.TCPListener).SyscallConn()
			require.NoError(t, err)
			ok := false
			require.NoError(t, raw.Control(func(fd uintptr) {
				if nfd, _, err := unix.Accept4(int(fd), unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC); err == nil {
					unix.Close(nfd)
					ok = true
				}
			}))
			return ok
		}
		port := ln.Addr().(*net.TCPAddr).Port
		r := underGrant(t, bin, dir, rules, "echo hi", fmt.Sprintf("echo hi; exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", port))
		assert.Equal(t, "hi\n", r.stdout, r.stderr)
		assert.Contains(t, r.stderr, "Permission denied")
		assert.False(t, queued(), "no connection arrived")
		without := runChild(t, dir, nil, "bash", "-c", fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", port))
		assert.Equal(t, "connected\n", without.stdout, "without the grant it connects: the test can fail")
		assert.True(t, queued(), "the unsandboxed connection arrived")
	})
}

// gitFixture is a repository with two commits and a change to README.md.
func gitFixture(t *testing.T) string {
	t.Helper()
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "main")
	git(t, repo, "config", "user.email", "t@example.com")
	git(t, repo, "config", "user.name", "Tester")
	require.NoError(t, os.WriteFile(filepath.Join(repo, "README.md"), []byte("# fixture\nhello world\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "src"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "src", "main.go"), []byte("package main\n\nfunc main() { println(\"hello\") }\n"), 0o644))
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "first")
	require.NoError(t, os.WriteFile(filepath.Join(repo, "src", "data.txt"), []byte("pear\napple\npear\n"), 0o644))
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "second: data")
	require.NoError(t, os.WriteFile(filepath.Join(repo, "README.md"), []byte("# fixture\nhello there\n"), 0o644))
	return repo
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
}
