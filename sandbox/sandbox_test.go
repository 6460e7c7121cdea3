package sandbox_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitlbot/hitl/sandbox"
	"github.com/stretchr/testify/require"
)

// The test binary is the sandbox's process: run with childSpec set, it
// builds the plan and replaces itself with the command, as `hitl
// sandbox` does.
const childSpec = "HITL_SANDBOX_TEST_SPEC"

func TestMain(m *testing.M) {
	if s := os.Getenv(childSpec); s != "" {
		var c struct {
			Spec sandbox.Spec
			Argv []string
		}
		if err := json.Unmarshal([]byte(s), &c); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(111)
		}
		os.Unsetenv(childSpec)
		dir, _ := os.Getwd()
		p, err := sandbox.Build(c.Spec, c.Argv, sandbox.KernelABI(), os.Getenv("PATH"), dir)
		if err == nil {
			err = sandbox.Exec(p, c.Argv, os.Environ())
		}
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(111)
	}
	os.Exit(m.Run())
}

// needKernel skips, loudly, where the kernel has no Landlock: what these
// tests show is what the kernel does.
func needKernel(t *testing.T, abi int) {
	t.Helper()
	if got := sandbox.KernelABI(); got < abi {
		t.Skipf("SKIPPED: this kernel's Landlock ABI is %d; the test needs %d", got, abi)
	}
}

type result struct {
	stdout, stderr string
	code           int
}

// sandboxed runs argv under spec in dir, as a child of the test.
func sandboxed(t *testing.T, dir string, spec sandbox.Spec, argv ...string) result {
	t.Helper()
	b, err := json.Marshal(map[string]any{"Spec": spec, "Argv": argv})
	require.NoError(t, err)
	self, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(self)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), childSpec+"="+string(b))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("cannot run the child: %v", err)
	}
	r := result{out.String(), errb.String(), cmd.ProcessState.ExitCode()}
	require.NotEqual(t, 111, r.code, "the sandbox failed: %s", r.stderr)
	return r
}

func TestExecOnlyListed(t *testing.T) {
	needKernel(t, 1)
	dir := t.TempDir()
	t.Run("a listed program runs", func(t *testing.T) {
		r := sandboxed(t, dir, sandbox.Spec{Exec: []string{"echo"}}, "bash", "-c", "echo hi")
		require.Equal(t, 0, r.code, r.stderr)
		require.Equal(t, "hi\n", r.stdout)
		r = sandboxed(t, dir, sandbox.Spec{Exec: []string{"ls"}}, "bash", "-c", "ls -d /")
		require.Equal(t, "/\n", r.stdout, r.stderr)
	})
	t.Run("a program not listed does not run", func(t *testing.T) {
		r := sandboxed(t, dir, sandbox.Spec{Exec: []string{"ls"}}, "bash", "-c", "id -u; echo after $?")
		require.Equal(t, "after 126\n", r.stdout, r.stderr)
		require.Contains(t, r.stderr, "Permission denied")
	})
	t.Run("a copy of a listed program does not run", func(t *testing.T) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "ls"), mustRead(t, "/bin/ls"), 0o755))
		r := sandboxed(t, dir, sandbox.Spec{Exec: []string{"ls"}, Write: []string{dir}}, "bash", "-c", "./ls /; echo $?")
		require.Equal(t, "126\n", r.stdout, r.stderr)
	})
}

func TestWriteOnlyListed(t *testing.T) {
	needKernel(t, 3)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	require.NoError(t, os.Mkdir(out, 0o755))
	r := sandboxed(t, dir, sandbox.Spec{Write: []string{out, "new.txt"}}, "bash", "-c",
		"echo a > out/a; echo b > new.txt; echo c > other.txt; echo d >> /dev/null; echo rc $?")
	require.Equal(t, "rc 0\n", r.stdout)
	require.Contains(t, r.stderr, "other.txt: Permission denied")
	require.FileExists(t, filepath.Join(out, "a"))
	require.Equal(t, "b\n", string(mustRead(t, filepath.Join(dir, "new.txt"))))
	require.NoFileExists(t, filepath.Join(dir, "other.txt"))
}

func TestDenyRead(t *testing.T) {
	needKernel(t, 1)
	dir := t.TempDir()
	secret := filepath.Join(dir, "home", ".ssh")
	require.NoError(t, os.MkdirAll(secret, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(secret, "id"), []byte("KEY"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "home", "notes"), []byte("NOTES"), 0o644))
	require.NoError(t, os.Symlink(secret, filepath.Join(dir, "link")))
	spec := sandbox.Spec{Exec: []string{"cat"}, DenyRead: []string{secret}}
	r := sandboxed(t, dir, spec, "bash", "-c", "cat home/notes; cat home/.ssh/id; cat link/id; cat home/../home/.ssh/id; cat /proc/self/root"+secret+"/id; echo")
	require.Equal(t, "NOTES\n", r.stdout, r.stderr)
	require.Equal(t, 4, strings.Count(r.stderr, "Permission denied"), r.stderr)
}

func TestNet(t *testing.T) {
	needKernel(t, 4)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	line := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", port)
	r := sandboxed(t, t.TempDir(), sandbox.Spec{}, "bash", "-c", line)
	require.Empty(t, r.stdout)
	require.Contains(t, r.stderr, "Permission denied")
	r = sandboxed(t, t.TempDir(), sandbox.Spec{Net: []string{fmt.Sprintf("127.0.0.1:%d", port)}}, "bash", "-c", line)
	require.Equal(t, "connected\n", r.stdout, r.stderr)
}

func TestSignalsScoped(t *testing.T) {
	needKernel(t, 6)
	r := sandboxed(t, t.TempDir(), sandbox.Spec{}, "bash", "-c", fmt.Sprintf("kill -0 %d; echo $?; kill -0 $$; echo $?", os.Getpid()))
	require.Equal(t, "1\n0\n", r.stdout, r.stderr)
}

func TestResolve(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "tool")
	require.NoError(t, os.WriteFile(script, []byte("#!/usr/bin/env bash\necho hi\n"), 0o755))
	files, err := sandbox.Resolve(script, os.Getenv("PATH"))
	require.NoError(t, err)
	bash, err := exec.LookPath("bash")
	require.NoError(t, err)
	bash, _ = filepath.EvalSymlinks(bash)
	require.Equal(t, script, files[0])
	require.Contains(t, files, bash, "the script's interpreter, through env")
	require.Greater(t, len(files), 3, "env, bash and the ELF interpreter they need: %v", files)
	_, err = sandbox.Resolve("no-such-program-hitl", os.Getenv("PATH"))
	require.ErrorContains(t, err, "not on PATH")
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return b
}

func TestReadOnlyListed(t *testing.T) {
	needKernel(t, 1)
	dir := t.TempDir()
	other := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a"), []byte("A\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(other, "b"), []byte("B\n"), 0o644))
	r := sandboxed(t, dir, sandbox.Spec{Exec: []string{"cat"}, Read: []string{dir}}, "bash", "-c", "cat a; cat "+other+"/b")
	require.Equal(t, "A\n", r.stdout, r.stderr)
	require.Contains(t, r.stderr, "Permission denied")
}

func TestBuild(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "home", ".ssh"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "home", "code"), 0o755))
	t.Run("a denied path is every sibling hierarchy on the way down to it", func(t *testing.T) {
		p, err := sandbox.Build(sandbox.Spec{DenyRead: []string{filepath.Join(dir, "home", ".ssh")}}, []string{"true"}, 7, os.Getenv("PATH"), dir)
		require.NoError(t, err)
		var reads []string
		for _, r := range p.Rules {
			reads = append(reads, r.Path)
		}
		require.Contains(t, reads, filepath.Join(dir, "home", "code"))
		for _, r := range reads {
			require.False(t, strings.HasPrefix(filepath.Join(dir, "home", ".ssh"), r) && r != "/dev/null", "%s grants the denied path", r)
		}
	})
	t.Run("a --write file that does not exist is created first, and only it is granted", func(t *testing.T) {
		p, err := sandbox.Build(sandbox.Spec{Write: []string{"new.txt"}}, []string{"true"}, 7, os.Getenv("PATH"), dir)
		require.NoError(t, err)
		require.Equal(t, []string{filepath.Join(dir, "new.txt")}, p.Create)
		_, err = sandbox.Build(sandbox.Spec{Write: []string{"nodir/new.txt"}}, []string{"true"}, 7, os.Getenv("PATH"), dir)
		require.ErrorContains(t, err, "does not exist")
	})
	t.Run("--net wants a TCP port, and says the host is not enforced", func(t *testing.T) {
		p, err := sandbox.Build(sandbox.Spec{Net: []string{"example.com:443"}}, []string{"true"}, 7, os.Getenv("PATH"), dir)
		require.NoError(t, err)
		require.Equal(t, []uint16{443}, p.Ports)
		require.Contains(t, p.Summary(), "any host on port 443, not only example.com")
		for _, bad := range []string{"example.com", "x:0", "x:http", "x:70000"} {
			_, err := sandbox.Build(sandbox.Spec{Net: []string{bad}}, []string{"true"}, 7, os.Getenv("PATH"), dir)
			require.Error(t, err, bad)
		}
	})
	t.Run("each ABI says what it leaves unenforced", func(t *testing.T) {
		require.Contains(t, strings.Join(sandbox.Unenforced(3), "; "), "every network connection and bind (ABI 4)")
		require.NotContains(t, strings.Join(sandbox.Unenforced(6), "; "), "(ABI")
		require.Contains(t, sandbox.Unenforced(0)[0], "no Landlock")
	})
}
