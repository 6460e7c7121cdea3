package main

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pendingIn returns the pending questions of run.
func pendingIn(t *testing.T, m *Main, run string) []*hitl.Question {
	t.Helper()
	qs, err := m.Service.Questions.Questions(principaltest.As(context.Background(), "admin:test"), hitl.QuestionFilter{RunID: run, Status: hitl.StatusPending})
	require.NoError(t, err)
	return qs
}

// Seed 002's async mode: re-running the same command gets the answer once,
// then asks anew.
func TestAskNoWaitTakesTheOutcome(t *testing.T) {
	m := startMain(t)
	ctx := principaltest.As(context.Background(), "admin:test")

	t.Run("an approval is delivered once, then asked anew", func(t *testing.T) {
		args := []string{"ask", "Deploy build 41 to prod?", "--approval", "--no-wait", "--run", "deploy"}
		first := cli(ctx, m, "", args...)
		require.Equal(t, exitNeedsInput, first.code, first.stderr)
		qs := pendingIn(t, m, "deploy")
		require.Len(t, qs, 1)
		require.Equal(t, 0, cli(ctx, m, "", "answer", qs[0].ID, "approve").code)

		done := cli(ctx, m, "", args...)
		assert.Equal(t, 0, done.code, done.stderr)
		assert.Equal(t, "approved\n", done.stdout)

		again := cli(ctx, m, "", args...)
		assert.Equal(t, exitNeedsInput, again.code, again.stderr)
		next := pendingIn(t, m, "deploy")
		require.Len(t, next, 1)
		assert.NotEqual(t, qs[0].ID, next[0].ID, "a new question")
		assert.Contains(t, again.stderr, next[0].ID)
	})
	t.Run("a secret is delivered once, then asked anew", func(t *testing.T) {
		args := []string{"ask", "API key?", "--sensitive", "--no-wait", "--run", "secret"}
		require.Equal(t, exitNeedsInput, cli(ctx, m, "", args...).code)
		qs := pendingIn(t, m, "secret")
		require.Len(t, qs, 1)
		require.Equal(t, 0, cli(ctx, m, "hunter2\n", "answer", qs[0].ID).code)

		done := cli(ctx, m, "", args...)
		assert.Equal(t, 0, done.code, done.stderr)
		assert.Equal(t, "hunter2\n", done.stdout)

		again := cli(ctx, m, "", args...)
		assert.Equal(t, exitNeedsInput, again.code, "not 6: the key was freed with the delivery")
		assert.NotContains(t, again.stdout+again.stderr, "hunter2")
	})
	t.Run("a waiting ask frees its key", func(t *testing.T) {
		ch := startCLI(ctx, m, strings.NewReader(""), "ask", "Name?", "--key", "k", "--run", "keyed")
		q := waitPending(t, m, "keyed")
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "Ada").code)
		r := result(t, ch)
		require.Equal(t, 0, r.code, r.stderr)

		again := cli(ctx, m, "", "ask", "Name?", "--key", "k", "--run", "keyed", "--no-wait")
		assert.Equal(t, exitNeedsInput, again.code, again.stderr)
		assert.NotContains(t, again.stderr, q.ID)
	})
}

// A restart between a sensitive answer and its delivery loses the secret
// (its key lived in memory): the service asks again and hitl ask waits on.
func TestAskWaitsAgainWhenASecretWasLost(t *testing.T) {
	db := t.TempDir() + "/hitl.db"
	at := func(listen string) func(*config.Config, *Main) {
		return func(c *config.Config, _ *Main) { c.DB, c.Listen = db, listen }
	}
	first := startMainNoCleanup(t, at("127.0.0.1:0"))
	proxy := newFrontProxy(t, first.URL())
	restarted := make(chan *Main, 1)
	var once sync.Once
	// Restart the service on the same database just before hitl ask takes
	// the answer; the proxy in front keeps the address hitl ask uses (a new
	// port behind it: the old one may be taken by another test meanwhile).
	proxy.intercept(func(w http.ResponseWriter, r *http.Request) bool {
		if strings.HasSuffix(r.URL.Path, "/receive") {
			once.Do(func() {
				assert.NoError(t, first.Close())
				second := startMainNoCleanup(t, at("127.0.0.1:0"))
				proxy.setBackend(t, second.URL())
				restarted <- second
			})
		}
		return false
	})
	ctx := principaltest.As(context.Background(), "admin:test")
	ch := startCLIWith(ctx, first, cliOpts{url: proxy.srv.URL}, "ask", "API key?", "--sensitive", "--run", "lost")
	q := waitPending(t, first, "lost")
	_, err := first.Service.Questions.Answer(principaltest.As(ctx, "local:alice"), q.ID, hitl.Response{Value: "first-secret"})
	require.NoError(t, err)

	var second *Main
	select {
	case second = <-restarted:
		t.Cleanup(func() { require.NoError(t, second.Close()) })
	case <-time.After(10 * time.Second):
		t.Fatal("hitl ask did not come to receive the answer")
	}
	again := waitPending(t, second, "lost")
	assert.Equal(t, q.ID, again.ID, "the same question waits again")
	_, err = second.Service.Questions.Answer(principaltest.As(ctx, "local:alice"), q.ID, hitl.Response{Value: "second-secret"})
	require.NoError(t, err)
	r := result(t, ch)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "second-secret\n", r.stdout)
	// Whether hitl ask saw the question pending again ("asks again" on
	// stderr) depends on whether its receive reaches the restarted service
	// before the second answer does; either way it must deliver the
	// second secret and never the lost one.
	assert.NotContains(t, r.stdout+r.stderr, "first-secret")
}
