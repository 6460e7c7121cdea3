package main

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunHandles: hitl runs shows each open run by its handle, waiting
// runs included, and every command that takes a run takes a handle or
// any unique prefix, of an active run or an ended one; an ambiguous
// prefix names its candidates (exit 2), an unknown one exits 7.
func TestRunHandles(t *testing.T) {
	m := startMain(t)
	ctx := context.Background()
	must := func(args ...string) cliResult {
		t.Helper()
		r := cli(ctx, m, "", args...)
		require.Equal(t, 0, r.code, "hitl %s: %s", strings.Join(args, " "), r.stderr)
		return r
	}
	for _, id := range []string{"claude-3f2b8c1e-1111", "claude-3f2b9d00-2222", "claude-77aa0000-3333", "loop-ended-12345"} {
		must("checkpoint", "--run", id, "--iter", "1")
	}
	// demo only asks: no agent reports on it, and it waits on a person.
	r := cli(ctx, m, "", "ask", "Which database?", "--options", "prod,staging", "--run", "demo", "--no-wait")
	require.Equal(t, 101, r.code, r.stderr)
	// loop-ended-12345 asked once, was answered, and finished.
	r = cli(ctx, m, "", "ask", "Ship it?", "--yes-no", "--run", "loop-ended-12345", "--no-wait")
	require.Equal(t, 101, r.code, r.stderr)
	q := waitPending(t, m, "loop-ended-12345")
	must("answer", q.ID, "yes")
	must("done", "--run", "loop-ended-12345")

	runs := must("runs").stdout
	for _, handle := range []string{"claude-3f2b8 ", "claude-3f2b9 ", "claude-77aa ", "demo "} {
		assert.Contains(t, runs, "\n"+handle, "hitl runs shows the handle %q", handle)
	}
	assert.Contains(t, runs, "waiting_for_input", "the waiting run is listed with its state")
	assert.NotContains(t, runs, "loop-ended", "a finished run is not listed")
	assert.NotContains(t, runs, "claude-3f2b8c1e", "ids are shown by their handles")
	assert.Contains(t, must("runs", "--all").stdout, "\nloop-ende ", "--all lists the finished run too, by its handle")

	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string // contained in stdout
		stderr string // contained in stderr
	}{
		{"a handle names an active run", []string{"pause", "claude-77aa"}, 0, "pause claude-77aa0000-3333:", ""},
		{"a longer unique prefix too", []string{"status", "claude-3f2b8c"}, 0, "Run claude-3f2b8c1e-1111: running", ""},
		{"the full id too", []string{"resume", "claude-77aa0000-3333"}, 0, "resume claude-77aa0000-3333:", ""},
		{"an ambiguous prefix lists its candidates", []string{"pause", "claude-3f2b"}, 2, "",
			"claude-3f2b begins 2 runs (claude-3f2b8c1e-1111, claude-3f2b9d00-2222): give more of the id"},
		{"an ambiguous prefix in history too", []string{"history", "claude"}, 2, "", "begins 3 runs"},
		{"an unknown run", []string{"pause", "nope"}, 7, "", "no run is named nope or starts with it"},
		{"an unknown run in history", []string{"history", "nope"}, 7, "", "no run is named nope or starts with it"},
		{"an unknown run in pending", []string{"pending", "--run", "nope"}, 7, "", "no run is named nope or starts with it"},
		{"an ended run's history by prefix", []string{"history", "loop-en"}, 0, "Ship it?", ""},
		{"an ended run's status by prefix", []string{"status", "loop-en"}, 0, "Run loop-ended-12345: done", ""},
		{"an ended run is found by prefix, and the service says it cannot be paused", []string{"pause", "loop"}, 7, "", "Run loop-ended-12345 is not active"},
		{"a waiting run's pending questions by prefix", []string{"pending", "--run", "dem"}, 0, "Which database?", ""},
		{"a waiting run's history by prefix", []string{"history", "de"}, 0, "Run demo: waiting_for_input", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := cli(ctx, m, "", tc.args...)
			assert.Equal(t, tc.code, r.code, "stdout %q stderr %q", r.stdout, r.stderr)
			assert.Contains(t, r.stdout, tc.stdout)
			assert.Contains(t, r.stderr, tc.stderr)
		})
	}
}
