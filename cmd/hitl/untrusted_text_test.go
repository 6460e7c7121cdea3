package main

import (
	"context"
	"strings"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A question that tries to erase the line and set the terminal title.
const (
	hostile      = "Deploy?\x1b[2K\r\x1b]0;title\x07"
	hostileShown = "<U+001B>[2K<U+000D><U+001B>]0;title<U+0007>"
)

// assertInert checks that out carries the hostile text as visible
// characters and no control a terminal would obey.
func assertInert(t *testing.T, out string) {
	t.Helper()
	assert.Contains(t, out, hostileShown)
	for _, c := range []string{"\x1b", "\x07", "\r"} {
		assert.NotContains(t, out, c)
	}
}

func TestUntrustedTextIsVisible(t *testing.T) {
	m := startMain(t)
	ctx := principaltest.As(context.Background(), "admin:test")
	agentCtx := principaltest.As(ctx, "local:agent")
	q, _, err := m.Service.Questions.Create(agentCtx, "esc", hitl.NewQuestion{Question: hostile,
		Options: []hitl.Option{{Label: "prod" + hostile}, {Label: "staging"}}})
	require.NoError(t, err)

	t.Run("pending shows controls as text", func(t *testing.T) {
		r := cli(ctx, m, "", "pending")
		require.Equal(t, 0, r.code, r.stderr)
		assertInert(t, r.stdout)
	})
	t.Run("pending --json escapes what JSON leaves raw", func(t *testing.T) {
		_, _, err := m.Service.Questions.Create(agentCtx, "esc-json", hitl.NewQuestion{Question: "C1\u009b2J bidi\u202e"})
		require.NoError(t, err)
		r := cli(ctx, m, "", "pending", "--json", "--run", "esc-json")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, `C1\u009b2J bidi\u202e`)
	})
	t.Run("the -i prompt shows controls as text", func(t *testing.T) {
		r := cli(ctx, m, "staging\n", "ask", hostile, "--options", "prod,staging", "-i", "--run", "esc-i")
		require.Equal(t, 0, r.code, r.stderr)
		assertInert(t, r.stderr)
	})
	t.Run("answer's output and ask's stderr show a note's controls as text", func(t *testing.T) {
		ch := startCLI(ctx, m, strings.NewReader(""), "ask", "Ship?", "--approval", "--run", "esc-note")
		asked := waitPending(t, m, "esc-note")
		a := cli(ctx, m, "", "answer", asked.ID, "approve", "--text", hostile)
		require.Equal(t, 0, a.code, a.stderr)
		r := result(t, ch)
		require.Equal(t, 0, r.code, r.stderr)
		assertInert(t, r.stderr)
	})
	t.Run("history shows controls as text", func(t *testing.T) {
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "staging").code)
		r := cli(ctx, m, "", "history", "esc")
		require.Equal(t, 0, r.code, r.stderr)
		assertInert(t, r.stdout)
	})
}

func TestAskValueOnStdout(t *testing.T) {
	m := startMain(t)
	ctx := principaltest.As(context.Background(), "admin:test")
	answer := func(t *testing.T, run string) {
		t.Helper()
		q := waitPending(t, m, run)
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, hostile).code)
	}

	t.Run("a pipe gets the exact value", func(t *testing.T) {
		ch := startCLIWith(ctx, m, cliOpts{}, "ask", "Name?", "--run", "raw")
		answer(t, "raw")
		r := result(t, ch)
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, hostile+"\n", r.stdout)
	})
	t.Run("a terminal gets controls as text", func(t *testing.T) {
		ch := startCLIWith(ctx, m, cliOpts{tty: true}, "ask", "Name?", "--run", "tty")
		answer(t, "tty")
		r := result(t, ch)
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "Deploy?"+hostileShown+"\n", r.stdout)
	})
}
