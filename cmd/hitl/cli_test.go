package main

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl/internal/principaltest"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAskAnswerTour(t *testing.T) {
	m := startMain(t)
	ctx := principaltest.As(context.Background(), "admin:test")

	asked := startCLI(ctx, m, strings.NewReader(""), "ask", "Which database?", "--options", "prod,staging", "--run", "tour")
	q := waitPending(t, m, "tour")

	pending := cli(ctx, m, "", "pending")
	require.Equal(t, 0, pending.code, pending.stderr)
	assert.Contains(t, pending.stdout, q.ID)
	assert.Contains(t, pending.stdout, "Which database?")
	assert.Contains(t, pending.stdout, "prod|staging")

	answered := cli(ctx, m, "", "answer", q.ID, "staging")
	require.Equal(t, 0, answered.code, answered.stderr)
	assert.Contains(t, answered.stdout, "staging")

	r := result(t, asked)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "staging\n", r.stdout, "stdout carries the value only")

	t.Run("a second answer is a conflict naming the first", func(t *testing.T) {
		again := cli(ctx, m, "", "answer", q.ID, "prod")
		assert.Equal(t, exitConflict, again.code)
		assert.Contains(t, again.stderr, "already answered by local at ", "the local person is named local, as on the web")
	})
	t.Run("history shows the answer", func(t *testing.T) {
		h := cli(ctx, m, "", "history", "tour")
		require.Equal(t, 0, h.code, h.stderr)
		assert.Contains(t, h.stdout, "Run tour: running")
		assert.Contains(t, h.stdout, "Which database?")
		assert.Contains(t, h.stdout, "staging")
	})
}

func TestAskOutcomes(t *testing.T) {
	clock := clocktest.New(time.Now())
	m := startMain(t, func(_ *config.Config, m *Main) { m.Clock = clock })
	ctx := principaltest.As(context.Background(), "admin:test")

	t.Run("approval denied exits 3 with the reason", func(t *testing.T) {
		ch := startCLI(ctx, m, strings.NewReader(""), "ask", "Deploy to production?", "--approval", "--run", "deny")
		q := waitPending(t, m, "deny")
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "deny", "--text", "freeze week").code)
		r := result(t, ch)
		assert.Equal(t, exitDenied, r.code)
		assert.Equal(t, "denied\n", r.stdout)
		assert.Contains(t, r.stderr, "freeze week")
	})
	t.Run("approval approved exits 0", func(t *testing.T) {
		ch := startCLI(ctx, m, strings.NewReader(""), "ask", "Deploy?", "--approval", "--run", "approve")
		q := waitPending(t, m, "approve")
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "yes", "--text", "go ahead").code)
		r := result(t, ch)
		assert.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "approved\n", r.stdout)
		assert.Contains(t, r.stderr, "go ahead")
	})
	t.Run("timeout without default exits 4", func(t *testing.T) {
		ch := startCLI(ctx, m, strings.NewReader(""), "ask", "Name?", "--run", "timeout", "--timeout", "5m")
		waitPending(t, m, "timeout")
		clock.Add(6 * time.Minute)
		_, err := m.Service.Questions.SweepExpired(ctx)
		require.NoError(t, err)
		r := result(t, ch)
		assert.Equal(t, exitTimedOut, r.code)
		assert.Empty(t, r.stdout)
	})
	t.Run("timeout with default prints the default", func(t *testing.T) {
		ch := startCLI(ctx, m, strings.NewReader(""), "ask", "Proceed?", "--yes-no", "--default", "no", "--run", "default")
		waitPending(t, m, "default")
		clock.Add(31 * time.Minute)
		_, err := m.Service.Questions.SweepExpired(ctx)
		require.NoError(t, err)
		r := result(t, ch)
		assert.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "no\n", r.stdout)
		assert.Contains(t, r.stderr, "timed out; using the default")
	})
	t.Run("cancelled exits 5", func(t *testing.T) {
		ch := startCLI(ctx, m, strings.NewReader(""), "ask", "Name?", "--run", "cancel")
		q := waitPending(t, m, "cancel")
		_, err := m.Service.Questions.Cancel(principaltest.As(ctx, "cli:ops"), q.ID, "run finished")
		require.NoError(t, err)
		r := result(t, ch)
		assert.Equal(t, exitCancelled, r.code)
		assert.Contains(t, r.stderr, "run finished")
	})
	t.Run("non-blocking returns the default at once", func(t *testing.T) {
		r := cli(ctx, m, "", "ask", "Verbose logs?", "--type", "non_blocking", "--yes-no", "--default", "yes", "--run", "nb")
		assert.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "yes\n", r.stdout)
		qs, _ := m.Service.Questions.Questions(ctx, hitl.QuestionFilter{RunID: "nb", Status: hitl.StatusPending})
		assert.Len(t, qs, 1, "it stays open for a later answer")
	})
	t.Run("Ctrl+C leaves the question pending and exits 130", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		ch := startCLI(cctx, m, strings.NewReader(""), "ask", "Name?", "--run", "interrupt", "--key", "k1")
		q := waitPending(t, m, "interrupt")
		cancel()
		r := result(t, ch)
		assert.Equal(t, exitInterrupted, r.code)
		assert.Contains(t, r.stderr, "stays pending")
		assert.Contains(t, r.stderr, "--key k1")
		got, _ := m.Service.Questions.Question(ctx, q.ID)
		assert.True(t, got.Pending())
		// Re-running with the same key picks up the same question.
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "Ada").code)
		again := cli(ctx, m, "", "ask", "Name?", "--run", "interrupt", "--key", "k1")
		assert.Equal(t, 0, again.code, again.stderr)
		assert.Equal(t, "Ada\n", again.stdout)
	})
}

func TestAskNoWait(t *testing.T) {
	m := startMain(t)
	ctx := principaltest.As(context.Background(), "admin:test")
	args := []string{"ask", "Which region?", "--options", "eu,us", "--run", "async", "--no-wait"}

	first := cli(ctx, m, "", args...)
	assert.Equal(t, exitNeedsInput, first.code)
	assert.Empty(t, first.stdout)
	assert.Contains(t, first.stderr, "hitl answer q_")
	assert.Contains(t, first.stderr, "re-run this same command")

	again := cli(ctx, m, "", args...)
	assert.Equal(t, exitNeedsInput, again.code, "still pending: same question, not a new one")
	qs, _ := m.Service.Questions.Questions(ctx, hitl.QuestionFilter{RunID: "async"})
	require.Len(t, qs, 1)

	require.Equal(t, 0, cli(ctx, m, "", "answer", qs[0].ID, "eu").code)
	done := cli(ctx, m, "", args...)
	assert.Equal(t, 0, done.code, done.stderr)
	assert.Equal(t, "eu\n", done.stdout)
}

func TestAskInteractive(t *testing.T) {
	m := startMain(t)
	ctx := principaltest.As(context.Background(), "admin:test")

	t.Run("terminal answer wins; a bad answer asks again", func(t *testing.T) {
		r := cli(ctx, m, "purple\nyes\n", "ask", "Ship it?", "--yes-no", "-i", "--run", "term")
		assert.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "yes\n", r.stdout)
		assert.Contains(t, r.stderr, "must be true or false")
	})
	t.Run("remote answer wins while the terminal is silent", func(t *testing.T) {
		stdin, w := io.Pipe()
		defer w.Close()
		ch := startCLI(ctx, m, stdin, "ask", "Name?", "-i", "--run", "remote")
		q := waitPending(t, m, "remote")
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "from slack").code)
		r := result(t, ch)
		assert.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "from slack\n", r.stdout)
		assert.Contains(t, r.stderr, "answered elsewhere by local")
	})
	t.Run("sensitive answer is printed once and scrubbed", func(t *testing.T) {
		r := cli(ctx, m, "hunter2\n", "ask", "API key?", "--sensitive", "-i", "--run", "secret")
		assert.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "hunter2\n", r.stdout)
		page, _ := m.DB.Questions(ctx, hitl.QuestionFilter{RunID: "secret"})
		qs := page.Questions
		require.Len(t, qs, 1)
		assert.True(t, qs[0].Response.Redacted)
		assert.Nil(t, qs[0].Response.Value, "scrubbed from the store once delivered")
		h := cli(ctx, m, "", "history", "secret")
		assert.NotContains(t, h.stdout, "hunter2")
	})
}

func TestCLIErrors(t *testing.T) {
	m := startMain(t)
	ctx := principaltest.As(context.Background(), "admin:test")
	for name, tc := range map[string]struct {
		args []string
		code int
		want string
	}{
		"no command":                {nil, exitUsage, ""},
		"unknown command":           {[]string{"frobnicate"}, exitUsage, "unknown command"},
		"ask without question":      {[]string{"ask"}, exitUsage, "needs a question"},
		"bad flag":                  {[]string{"ask", "x", "--colour"}, exitUsage, "flag provided but not defined"},
		"two kinds":                 {[]string{"ask", "x", "--yes-no", "--approval"}, exitUsage, "choose one of"},
		"invalid default":           {[]string{"ask", "x", "--options", "a,b", "--default", "c"}, exitUsage, "not one of the options"},
		"answer unknown question":   {[]string{"answer", "q_nope", "x"}, exitNotFound, "not found"},
		"answer without anything":   {[]string{"answer"}, exitUsage, "needs a question id and a value"},
		"answer unknown from stdin": {[]string{"answer", "q_nope"}, exitNotFound, "not found"},
		"history unknown run":       {[]string{"history", "nobody"}, exitNotFound, "no run is named nobody or starts with it"},
	} {
		t.Run(name, func(t *testing.T) {
			r := cli(ctx, m, "", tc.args...)
			assert.Equal(t, tc.code, r.code, r.stderr)
			assert.Contains(t, r.stderr, tc.want)
		})
	}
	t.Run("service down is a plain error", func(t *testing.T) {
		r := run(ctx, []string{"pending"}, &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard,
			getenv: func(k string) string {
				if k == "HITL_URL" {
					return "http://127.0.0.1:1"
				}
				return ""
			}})
		assert.Equal(t, exitFailure, r)
	})
}

func TestServeErrors(t *testing.T) {
	ctx := principaltest.As(context.Background(), "admin:test")
	for name, tc := range map[string]struct {
		args []string
		code int
		want string
	}{
		"database directory missing":    {[]string{"serve", "--db", "/nonexistent/dir/hitl.db", "--listen", "127.0.0.1:0"}, exitFailure, "/nonexistent/dir/hitl.db"},
		"public address without tokens": {[]string{"serve", "--listen", "0.0.0.0:7070"}, exitUsage, "refusing to listen beyond loopback without tokens"},
		"unknown flag":                  {[]string{"serve", "--port", "80"}, exitUsage, "flag provided but not defined"},
	} {
		t.Run(name, func(t *testing.T) {
			var errb syncBuffer
			code := run(ctx, tc.args, &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &errb, getenv: func(string) string { return "" }})
			assert.Equal(t, tc.code, code, errb.String())
			assert.Contains(t, errb.String(), tc.want)
		})
	}
	t.Run("a second service on the same database is refused clearly", func(t *testing.T) {
		m := startMain(t)
		var errb syncBuffer
		code := run(ctx, []string{"serve", "--db", m.Config.DB, "--listen", "127.0.0.1:0"},
			&env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &errb, getenv: func(string) string { return "" }})
		assert.Equal(t, exitFailure, code)
		assert.Contains(t, errb.String(), "locked by another hitl process")
	})
}

func TestAnswerFromStdin(t *testing.T) {
	m := startMain(t)
	ctx := principaltest.As(context.Background(), "admin:test")
	q, _, err := m.Service.Questions.Create(principaltest.As(ctx, "local:tester"), "stdin", hitl.NewQuestion{Question: "Deploy key?", Sensitive: true})
	require.NoError(t, err)
	r := cli(ctx, m, "s3cret-from-stdin\n", "answer", q.ID)
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stdout+r.stderr, "s3cret-from-stdin", "a secret is not echoed back")
	got, err := m.Service.Questions.Receive(principaltest.As(ctx, "local:tester"), q.ID)
	require.NoError(t, err)
	assert.Equal(t, "s3cret-from-stdin", got.Response.Value)

	t.Run("empty stdin is a usage error", func(t *testing.T) {
		q, _, err := m.Service.Questions.Create(principaltest.As(ctx, "local:tester"), "stdin", hitl.NewQuestion{Question: "Name?"})
		require.NoError(t, err)
		r := cli(ctx, m, "", "answer", q.ID, "-")
		assert.Equal(t, exitUsage, r.code)
		assert.Contains(t, r.stderr, "no answer on standard input")
	})
}
