package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitlbot/hitl/sandbox"
	"github.com/stretchr/testify/require"
)

// cliChildEnv makes TestCLIChild run hitl with the arguments after --:
// the test binary as the hitl process, for commands that replace the
// process (hitl sandbox) or must run as a child. Without it the test
// skips.
const cliChildEnv = "HITL_CLI_CHILD"

func TestCLIChild(t *testing.T) {
	if os.Getenv(cliChildEnv) == "" {
		t.Skip("runs only as a child of the sandbox tests")
	}
	os.Unsetenv(cliChildEnv)
	if p := os.Getenv("HITL_TEST_SELF"); p != "" {
		selfProgram = func() (string, error) { return p, nil } // what a wrapped command runs
	}
	os.Exit(process(flag.Args()))
}

// hitlProgram is an executable `hitl` for child processes: a script that
// runs this test binary as TestCLIChild.
func hitlProgram(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	p := filepath.Join(t.TempDir(), "hitl")
	script := "#!/bin/sh\n" + cliChildEnv + "=1 HITL_TEST_SELF=" + shellJoin([]string{p}) + " exec " + shellJoin([]string{self}) + " -test.run='^TestCLIChild$' -- \"$@\"\n"
	require.NoError(t, os.WriteFile(p, []byte(script), 0o755))
	return p
}

// needLandlock skips, loudly, where the kernel has no Landlock.
func needLandlock(t *testing.T) {
	t.Helper()
	if sandbox.KernelABI() < 6 {
		t.Skipf("SKIPPED: this kernel's Landlock ABI is %d; these tests need 6", sandbox.KernelABI())
	}
}

// runChild runs argv in dir and returns its outputs and exit code.
func runChild(t *testing.T, dir string, env []string, argv ...string) cliResult {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("cannot run %v: %v", argv, err)
	}
	return cliResult{cmd.ProcessState.ExitCode(), out.String(), errb.String()}
}

// sandboxCLI runs hitl sandbox in this process with the kernel's ABI
// simulated as abi; ran reports whether it went on to enter the sandbox.
func sandboxCLI(abi int, args ...string) (r cliResult, ran *sandbox.Plan) {
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: os.Getenv,
		abi: func() int { return abi },
		sandboxExec: func(p *sandbox.Plan, argv []string) error {
			ran = p
			return nil
		}}
	code := run(context.Background(), append([]string{"sandbox"}, args...), e)
	return cliResult{code, out.String(), errb.String()}, ran
}

func TestSandboxWithoutLandlock(t *testing.T) {
	t.Run("it refuses to run the command, exit 10", func(t *testing.T) {
		r, ran := sandboxCLI(0, "--exec", "git", "--", "git", "status")
		require.Equal(t, exitRefused, r.code)
		require.Contains(t, r.stderr, "no Landlock")
		require.Contains(t, r.stderr, "not running git status")
		require.Nil(t, ran)
	})
	t.Run("with --best-effort it runs it and says nothing is enforced", func(t *testing.T) {
		r, ran := sandboxCLI(0, "--best-effort", "--quiet", "--", "true")
		require.Equal(t, exitOK, r.code, r.stderr)
		require.NotNil(t, ran)
		require.Equal(t, 0, ran.ABI)
		require.Contains(t, r.stderr, "nothing is enforced", "--quiet does not hide that")
	})
	t.Run("with Landlock it says the ABI and what is left", func(t *testing.T) {
		r, ran := sandboxCLI(6, "--", "true")
		require.Equal(t, exitOK, r.code, r.stderr)
		require.Equal(t, 6, ran.ABI)
		require.Contains(t, r.stderr, "Landlock ABI 6; not enforced: UDP")
	})
	t.Run("bad input is a usage error", func(t *testing.T) {
		for _, args := range [][]string{{"--exec", "git"}, {"--net", "example.com", "--", "true"}, {"--exec", "no-such-program-hitl", "--", "true"}} {
			r, ran := sandboxCLI(6, args...)
			require.Equal(t, exitUsage, r.code, "%v: %s", args, r.stderr)
			require.Nil(t, ran)
		}
	})
}

func TestSandboxCommand(t *testing.T) {
	needLandlock(t)
	hitl := hitlProgram(t)
	dir := t.TempDir()
	r := runChild(t, dir, nil, hitl, "sandbox", "--exec", "ls", "--write", "out.txt", "--", "bash", "-c", "ls -d /; id -u; echo ok > out.txt; echo no > other")
	require.Equal(t, "/\n", r.stdout, r.stderr)
	require.Contains(t, r.stderr, "hitl sandbox: Landlock ABI")
	require.Contains(t, r.stderr, "id: Permission denied")
	require.Contains(t, r.stderr, "other: Permission denied")
	b, err := os.ReadFile(filepath.Join(dir, "out.txt"))
	require.NoError(t, err)
	require.Equal(t, "ok\n", string(b))
	require.NoFileExists(t, filepath.Join(dir, "other"))
}
