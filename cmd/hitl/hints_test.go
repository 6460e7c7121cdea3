package main

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAskHints(t *testing.T) {
	m := startMain(t)
	ctx := principaltest.As(context.Background(), "admin:test")

	t.Run("a timeout below the minimum is refused, naming the bound; nothing is asked", func(t *testing.T) {
		r := cli(ctx, m, "", "ask", "Name?", "--timeout", "1m", "--no-wait", "--run", "short")
		assert.Equal(t, exitUsage, r.code, r.stderr)
		assert.Contains(t, r.stderr, "timeout 1m is below this service's minimum of 5m (timeouts.min): ask for 5m to 24h")
		assert.Empty(t, awaitPendingNone(t, m, "short"))
	})
	t.Run("a timeout within bounds is not mentioned", func(t *testing.T) {
		r := cli(ctx, m, "", "ask", "Name?", "--timeout", "10m", "--no-wait", "--run", "fine")
		assert.Equal(t, exitNeedsInput, r.code, r.stderr)
		assert.NotContains(t, r.stderr, "--timeout")
	})
	t.Run("without Slack, Slack is not offered", func(t *testing.T) {
		r := cli(ctx, m, "", "ask", "Region?", "--no-wait", "--run", "noslack")
		assert.Equal(t, exitNeedsInput, r.code, r.stderr)
		assert.NotContains(t, r.stderr, "Slack")
		assert.Contains(t, r.stderr, "Answer it with: hitl answer q_")
	})
	t.Run("an approval or a yes/no question says which words answer it", func(t *testing.T) {
		r := cli(ctx, m, "", "ask", "Deploy?", "--approval", "--no-wait", "--run", "words")
		assert.Equal(t, exitNeedsInput, r.code, r.stderr)
		q := pendingIn(t, m, "words")[0]
		assert.Contains(t, r.stderr, "Answer it with: hitl answer "+q.ID+" approve (or deny, or --reply TEXT)")
		r = cli(ctx, m, "", "ask", "Migrate?", "--yes-no", "--no-wait", "--run", "words-yn")
		assert.Equal(t, exitNeedsInput, r.code, r.stderr)
		q = pendingIn(t, m, "words-yn")[0]
		assert.Contains(t, r.stderr, "Answer it with: hitl answer "+q.ID+" yes (or no)")
	})
	t.Run("a multi-select question says several options answer it, comma-separated", func(t *testing.T) {
		q, _, err := m.Service.Questions.Create(principaltest.As(ctx, "api:agent"), "multi", hitl.NewQuestion{Question: "Which checks?",
			ResponseType: hitl.ChoiceResponse, MultiSelect: true, Options: []hitl.Option{{Label: "lint"}, {Label: "test"}}})
		require.NoError(t, err)
		p := cli(ctx, m, "", "pending", "--run", "multi")
		assert.Contains(t, p.stdout, "any of lint,test")
		r := cli(ctx, m, "", "answer", q.ID, "lint,test")
		assert.Equal(t, exitOK, r.code, r.stderr)
	})
	t.Run("a secret is to be typed, never passed as an argument", func(t *testing.T) {
		r := cli(ctx, m, "", "ask", "API key?", "--sensitive", "--no-wait", "--run", "hint")
		assert.Equal(t, exitNeedsInput, r.code, r.stderr)
		q := pendingIn(t, m, "hint")[0]
		hint := "hitl answer " + q.ID + ", then type it (hidden)"
		assert.Contains(t, r.stderr, hint)
		assert.NotContains(t, r.stderr, "VALUE")

		p := cli(ctx, m, "", "pending", "--run", "hint")
		assert.Contains(t, p.stdout, "secret: "+hint)
	})
	t.Run("a waiting secret says to type it", func(t *testing.T) {
		ch := startCLI(ctx, m, strings.NewReader(""), "ask", "Token?", "--sensitive", "--run", "hint-wait")
		q := waitPending(t, m, "hint-wait")
		require.Equal(t, 0, cli(ctx, m, "tok\n", "answer", q.ID).code)
		r := result(t, ch)
		assert.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stderr, "waiting for an answer to "+q.ID+" (answer it with: hitl answer "+q.ID+", then type it (hidden))")
	})
	t.Run("a secret on the command line is answered with a warning", func(t *testing.T) {
		q, _, err := m.Service.Questions.Create(principaltest.As(ctx, "local:agent"), "argv", hitl.NewQuestion{Question: "Key?", Sensitive: true})
		require.NoError(t, err)
		r := cli(ctx, m, "", "answer", q.ID, "s3cret-in-argv")
		assert.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stderr, "now in your shell history")
		assert.NotContains(t, r.stdout+r.stderr, "s3cret-in-argv")
	})
	t.Run("Ctrl+C repeats the question id", func(t *testing.T) {
		for name, args := range map[string][]string{
			"waiting":     {"ask", "Name?", "--run", "ctrlc-wait"},
			"interactive": {"ask", "Name?", "-i", "--run", "ctrlc-i"},
		} {
			t.Run(name, func(t *testing.T) {
				stdin, w := io.Pipe()
				defer w.Close()
				cctx, cancel := context.WithCancel(ctx)
				ch := startCLI(cctx, m, stdin, args...)
				q := waitPending(t, m, args[len(args)-1])
				cancel()
				r := result(t, ch)
				assert.Equal(t, exitInterrupted, r.code)
				assert.Contains(t, r.stderr, "interrupted; "+q.ID+" stays pending. To answer it: hitl answer "+q.ID+" VALUE")
			})
		}
	})
}

func TestAskOffersSlackWhenOn(t *testing.T) {
	e := startSlack(t)
	r := cli(e.ctx, e.m, "", "ask", "Region?", "--no-wait", "--run", "slack-hint")
	assert.Equal(t, exitNeedsInput, r.code, r.stderr)
	assert.Contains(t, r.stderr, "Answer it in Slack, or with: hitl answer q_")
}
