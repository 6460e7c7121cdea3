package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startGate runs hitl gate in the background with its stderr line by line.
func startGate(ctx context.Context, m *Main, args ...string) (*lines, <-chan cliResult) {
	stderr := newLines()
	ch := make(chan cliResult, 1)
	go func() {
		var out syncBuffer
		e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: stderr, getenv: func(k string) string {
			if k == "HITL_URL" {
				return m.URL()
			}
			return ""
		}}
		code := run(ctx, append([]string{"gate"}, args...), e)
		ch <- cliResult{code: code, stdout: out.String()}
	}()
	return stderr, ch
}

func TestGateWhileItWaits(t *testing.T) {
	m := startMain(t)
	admin := principaltest.As(context.Background(), "admin:test")
	t.Run("it prints the approval's id while it waits", func(t *testing.T) {
		stderr, ch := startGate(context.Background(), m, "--run", "gw-1", "--", "echo", "hi")
		q := waitPending(t, m, "gw-1")
		line := stderr.next(t, "waiting for approval")
		assert.Equal(t, "hitl gate: waiting for approval "+q.ID+" to run echo hi (approve it with: hitl answer "+q.ID+" approve (or deny, or --reply TEXT))", line)
		require.Equal(t, 0, cli(admin, m, "", "answer", q.ID, "approve").code)
		r := result(t, ch)
		assert.Equal(t, 0, r.code)
		assert.Equal(t, "hi\n", r.stdout)
	})
	t.Run("Ctrl+C exits 130, runs nothing, and cancels the approval: a later approval says so", func(t *testing.T) {
		marker := filepath.Join(t.TempDir(), "ran")
		cctx, interrupt := context.WithCancel(context.Background())
		defer interrupt()
		stderr, ch := startGate(cctx, m, "--run", "gw-2", "--", "touch", marker)
		q := waitPending(t, m, "gw-2")
		stderr.next(t, q.ID)
		interrupt()
		r := result(t, ch)
		assert.Equal(t, exitInterrupted, r.code)
		assert.Contains(t, stderr.next(t, "interrupted"), "hitl gate: interrupted; approval "+q.ID+" is cancelled and touch "+marker+" was not run")
		got, err := m.Service.Questions.Question(admin, q.ID)
		require.NoError(t, err)
		assert.Equal(t, hitl.StatusCancelled, got.Status)
		assert.Contains(t, got.CancelReason, "hitl gate was interrupted")

		late := cli(admin, m, "", "answer", q.ID, "approve")
		assert.Equal(t, exitCancelled, late.code, "an approval after the command was abandoned is refused")
		assert.Contains(t, late.stderr, "cancelled")
		_, statErr := os.Stat(marker)
		assert.True(t, os.IsNotExist(statErr), "the command never ran")
	})
}
