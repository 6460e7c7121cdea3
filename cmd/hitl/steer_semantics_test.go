package main

import (
	"context"
	"strings"
	"testing"

	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runsRow is hitl runs' line for run.
func runsRow(t *testing.T, m *Main, run string) string {
	t.Helper()
	r := cli(context.Background(), m, "", "runs")
	require.Equal(t, 0, r.code, r.stderr)
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, run+" ") {
			return l
		}
	}
	t.Fatalf("hitl runs does not list %s:\n%s", run, r.stdout)
	return ""
}

func TestSteeringSemanticsFromTheShell(t *testing.T) {
	ctx := context.Background()
	m := startMain(t)
	t.Run("escalate keeps opus while README's loop passes --model haiku at every checkpoint", func(t *testing.T) {
		checkpointOut(t, cli(ctx, m, "", "checkpoint", "--run", "esc-1", "--iter", "1", "--max", "10", "--model", "haiku"))
		r := cli(ctx, m, "", "escalate", "esc-1", "--model", "opus")
		require.Equal(t, 0, r.code, r.stderr)
		line := checkpointOut(t, cli(ctx, m, "", "checkpoint", "--run", "esc-1", "--iter", "2", "--max", "10", "--model", "haiku"))
		assert.Equal(t, checkpointLine{Status: steer.RunRunning, Model: "opus", NewModel: "opus"}, line)
		for _, iter := range []string{"3", "4"} {
			line = checkpointOut(t, cli(ctx, m, "", "checkpoint", "--run", "esc-1", "--iter", iter, "--max", "10", "--model", "haiku"))
			assert.Equal(t, checkpointLine{Status: steer.RunRunning, Model: "opus"}, line, "iteration %s", iter)
		}
		assert.Contains(t, runsRow(t, m, "esc-1"), "opus")
		r = cli(ctx, m, "", "status", "esc-1")
		assert.Contains(t, r.stdout, "Run esc-1: running, iteration 4 of 10, model opus\n")
	})
	t.Run("hitl pause and hitl runs name the same iteration while the loop holds at its next checkpoint", func(t *testing.T) {
		checkpointOut(t, cli(ctx, m, "", "checkpoint", "--run", "pz-1", "--iter", "4", "--max", "10", "--model", "haiku"))
		r := cli(ctx, m, "", "pause", "pz-1")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "pause pz-1: Loop paused at iteration 4 of 10\n", r.stdout)
		ch := startCLI(ctx, m, strings.NewReader(""), "checkpoint", "--run", "pz-1", "--iter", "5", "--max", "10", "--model", "haiku")
		untilLogged(t, m, "the paused loop's report of iteration 5", reported("pz-1", 5))
		row := runsRow(t, m, "pz-1")
		assert.Contains(t, row, "paused")
		assert.Contains(t, row, "4 of 10", "the iteration hitl pause named")
		require.Equal(t, 0, cli(ctx, m, "", "resume", "pz-1").code)
		assert.Equal(t, steer.RunRunning, checkpointOut(t, result(t, ch)).Status)
		assert.Contains(t, runsRow(t, m, "pz-1"), "5 of 10", "let through, the loop is at iteration 5")
	})
}
