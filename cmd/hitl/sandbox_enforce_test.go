package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitlbot/hitl/config"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// enforcePolicy is a service whose policy allows sort and head, and holds
// what it allows to its grant (policy.enforce: kernel).
func enforcePolicy(c *config.Config, _ *Main) {
	c.Policy.Enforce = "kernel"
	c.Policy.Rules = []config.PolicyRule{
		{Name: "sort", OpType: "shell", Resource: "sort", Effect: "allow"},
		{Name: "head", OpType: "shell", Resource: "head", Effect: "allow"},
	}
}

// runChildInput is runChild with stdin.
func runChildInput(t *testing.T, dir, stdin string, env []string, argv ...string) cliResult {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, append(os.Environ(), env...), strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("cannot run %v: %v", argv, err)
	}
	return cliResult{cmd.ProcessState.ExitCode(), out.String(), errb.String()}
}

func TestHookWrapsAllowedBashInItsGrant(t *testing.T) {
	needLandlock(t)
	m := startMain(t, enforcePolicy)
	hitl := hitlProgram(t)
	dir, _, _ := bypassFixture(t)
	line := "sort notes.txt | head -1"
	ev := hookEvent(t, "claude_pretooluse_bash.json", map[string]any{"cwd": dir, "session_id": "s-enforce",
		"tool_input": map[string]any{"command": line, "description": "first note", "timeout": 120000}})
	r := runChildInput(t, dir, ev, []string{"HITL_URL=" + m.URL()}, hitl, "hook", "claude")
	d := decoded(t, r)
	require.Equal(t, "allow", d.PermissionDecision, r.stderr)
	assert.Contains(t, d.PermissionDecisionReason, "runs under its grant: may run sort, head; may write nothing; no network")
	wrapped, _ := d.UpdatedInput["command"].(string)
	assert.Contains(t, wrapped, " sandbox --quiet --exec sort --exec head -- bash -c 'sort notes.txt | head -1'", "the original line is readable in it")
	assert.Equal(t, "first note", d.UpdatedInput["description"], "the rest of the input is kept")

	t.Run("running the wrapped command under bash does what the original did", func(t *testing.T) {
		original := runChild(t, dir, nil, "bash", "-c", line)
		under := runChild(t, dir, nil, "bash", "-c", wrapped)
		assert.Equal(t, 0, under.code, under.stderr)
		assert.Equal(t, original.stdout, under.stdout)
		assert.Equal(t, "a\n", under.stdout)
	})
	t.Run("what the line did not show cannot run inside the wrapped command", func(t *testing.T) {
		hidden := strings.Replace(wrapped, "'sort notes.txt | head -1'", "'sort notes.txt | head -1; ./evil; echo x > new.txt'", 1)
		under := runChild(t, dir, nil, "bash", "-c", hidden)
		assert.Equal(t, "a\n", under.stdout, under.stderr)
		assert.NotContains(t, under.stderr, "RAN-EVIL")
		assert.NoFileExists(t, filepath.Join(dir, "new.txt"))
	})
	t.Run("without enforce: kernel, the Bash call is allowed as it is", func(t *testing.T) {
		plain := startMain(t, func(c *config.Config, m *Main) { enforcePolicy(c, m); c.Policy.Enforce = "" })
		r := runChildInput(t, dir, ev, []string{"HITL_URL=" + plain.URL()}, hitl, "hook", "claude")
		d := decoded(t, r)
		assert.Equal(t, "allow", d.PermissionDecision)
		assert.Nil(t, d.UpdatedInput)
	})
}

// simulatedKernelCLI runs hitl in this process against m, with the
// kernel's Landlock ABI simulated as abi.
func simulatedKernelCLI(m *Main, abi int, stdin string, args ...string) cliResult {
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, abi: func() int { return abi },
		getenv: func(k string) string {
			if k == "HITL_URL" {
				return m.URL()
			}
			return os.Getenv(k)
		}}
	code := run(context.Background(), args, e)
	return cliResult{code, out.String(), errb.String()}
}

func TestEnforceWithoutLandlock(t *testing.T) {
	m := startMain(t, enforcePolicy)
	dir, _, _ := bypassFixture(t)
	t.Run("the hook asks instead of allowing what the kernel cannot hold", func(t *testing.T) {
		ev := hookEvent(t, "claude_pretooluse_bash.json", map[string]any{"cwd": dir, "tool_input": map[string]any{"command": "sort notes.txt"}})
		d := decoded(t, simulatedKernelCLI(m, 0, ev, "hook", "claude"))
		assert.Equal(t, "ask", d.PermissionDecision)
		assert.Contains(t, d.PermissionDecisionReason, "this kernel has no Landlock")
		assert.Nil(t, d.UpdatedInput)
	})
	t.Run("hitl gate refuses to run it, exit 10", func(t *testing.T) {
		r := simulatedKernelCLI(m, 0, "", "gate", "--", "sort", "notes.txt")
		assert.Equal(t, exitRefused, r.code, r.stderr)
		assert.Contains(t, r.stderr, "no Landlock")
		assert.Contains(t, r.stderr, "not running sort notes.txt")
		assert.Empty(t, r.stdout, "sort did not run")
	})
	t.Run("hitl doctor says the kernel does not enforce, and at which ABI it does", func(t *testing.T) {
		for abi, want := range map[int]string{0: "--       the kernel: no Landlock", 7: "ok       the kernel: Landlock ABI 7 enforces grants"} {
			var out bytes.Buffer
			c := (&doctor{e: &env{stdout: &out, abi: func() int { return abi }}}).kernel()
			assert.True(t, strings.HasPrefix(c.String(), want), c.String())
		}
	})
}

func TestGateUnderItsGrant(t *testing.T) {
	needLandlock(t)
	m := startMain(t, enforcePolicy)
	hitl := hitlProgram(t)
	dir, _, _ := bypassFixture(t)
	r := runChild(t, dir, []string{"HITL_URL=" + m.URL()}, hitl, "gate", "--", "sort", "notes.txt")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "a\nb\n", r.stdout)
	assert.Contains(t, r.stderr, "hitl gate: running it under its grant: may run sort; may write nothing; no network")
	t.Run("an allowed program cannot do what its grant does not hold", func(t *testing.T) {
		// sort's grant holds no file: sort -o to a file the decider
		// allowed to no one (as if it had missed the option) fails
		out := filepath.Join(dir, "sorted.txt")
		r := runChild(t, dir, nil, append([]string{hitl, "sandbox", "--quiet", "--exec", "sort", "--"}, "sort", "-o", out, "notes.txt")...)
		assert.NotEqual(t, 0, r.code)
		assert.NoFileExists(t, out)
	})
}

func TestApprovalShowsItsGrant(t *testing.T) {
	m := startMain(t, enforcePolicy)
	ctx := context.Background()
	ev := hookEvent(t, "claude_pretooluse_bash.json", map[string]any{"session_id": "s-grant",
		"tool_input": map[string]any{"command": "sort notes.txt > sorted.txt && rm old.txt"}})
	ch := hookRun(ctx, m, cliOpts{}, ev, "claude")
	q := awaitPending(t, m, "claude-s-grant", 1)[0]
	require.NotNil(t, q.RunGrant, "the approval holds its grant")
	want := "When it runs: may run sort, rm; may write sorted.txt; no network"
	r := cli(ctx, m, "", "show", q.ID)
	assert.Contains(t, r.stdout, want, "hitl show")
	r = cli(ctx, m, "", "answer", q.ID, "deny", "--text", "no")
	require.Equal(t, 0, r.code, r.stderr)
	<-ch
}

func TestHookWrapsApprovedBashInItsGrant(t *testing.T) {
	needLandlock(t)
	m := startMain(t, enforcePolicy)
	hitl := hitlProgram(t)
	dir, _, _ := bypassFixture(t)
	line := "sort notes.txt && rm -f gone.txt"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "gone.txt"), nil, 0o644))
	ev := hookEvent(t, "claude_pretooluse_bash.json", map[string]any{"cwd": dir, "session_id": "s-approved",
		"tool_input": map[string]any{"command": line}})
	ch := make(chan cliResult, 1)
	go func() { ch <- runChildInput(t, dir, ev, []string{"HITL_URL=" + m.URL()}, hitl, "hook", "claude") }()
	q := awaitPending(t, m, "claude-s-approved", 1)[0]
	require.NotNil(t, q.RunGrant)
	r := cli(context.Background(), m, "", "answer", q.ID, "approve")
	require.Equal(t, 0, r.code, r.stderr)
	d := decoded(t, <-ch)
	require.Equal(t, "allow", d.PermissionDecision)
	wrapped, _ := d.UpdatedInput["command"].(string)
	assert.Contains(t, wrapped, "--exec sort --exec rm -- bash -c 'sort notes.txt && rm -f gone.txt'")
	under := runChild(t, dir, nil, "bash", "-c", wrapped)
	assert.Equal(t, "a\nb\n", under.stdout, under.stderr)
	assert.FileExists(t, filepath.Join(dir, "gone.txt"), "rm's grant holds no file to remove: the person saw no write")
}
