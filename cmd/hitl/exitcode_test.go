package main

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSettledQuestionExitCodes(t *testing.T) {
	clock := clocktest.New(time.Now())
	m := startMain(t, withClock(clock))
	ctx := principaltest.As(context.Background(), "admin:test")
	agentCtx := principaltest.As(ctx, "local:agent")
	ask := func(t *testing.T) *hitl.Question {
		q, _, err := m.Service.Questions.Create(agentCtx, "settled", hitl.NewQuestion{Question: "Name?"})
		require.NoError(t, err)
		return q
	}

	t.Run("answering a timed-out question exits 4", func(t *testing.T) {
		q := ask(t)
		clock.Add(31 * time.Minute)
		_, err := m.Service.Questions.SweepExpired(ctx)
		require.NoError(t, err)
		r := cli(ctx, m, "", "answer", q.ID, "Ada")
		assert.Equal(t, exitTimedOut, r.code, r.stderr)
		assert.Contains(t, r.stderr, "timed out")
	})
	t.Run("answering a cancelled question exits 5", func(t *testing.T) {
		q := ask(t)
		_, err := m.Service.Questions.Cancel(agentCtx, q.ID, "not needed")
		require.NoError(t, err)
		r := cli(ctx, m, "", "answer", q.ID, "Ada")
		assert.Equal(t, exitCancelled, r.code, r.stderr)
		assert.Contains(t, r.stderr, "cancelled")
	})
	t.Run("cancel prints one line and exits 0", func(t *testing.T) {
		q := ask(t)
		r := cli(ctx, m, "", "cancel", q.ID, "--reason", "run finished")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "Cancelled "+q.ID+" (run settled): run finished\n", r.stdout)
		got, err := m.Service.Questions.Question(ctx, q.ID)
		require.NoError(t, err)
		assert.Equal(t, hitl.StatusCancelled, got.Status)

		again := cli(ctx, m, "", "cancel", q.ID)
		assert.Equal(t, exitCancelled, again.code, "cancelling a cancelled question exits 5")
	})
	t.Run("cancelling an answered question exits 6", func(t *testing.T) {
		q := ask(t)
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "Ada").code)
		r := cli(ctx, m, "", "cancel", q.ID)
		assert.Equal(t, exitConflict, r.code, r.stderr)
	})
	t.Run("cancel needs one id", func(t *testing.T) {
		r := cli(ctx, m, "", "cancel")
		assert.Equal(t, exitUsage, r.code)
		assert.Contains(t, r.stderr, "hitl cancel needs a question id or a run")
	})
	t.Run("cancelling an unknown question exits 7", func(t *testing.T) {
		assert.Equal(t, exitNotFound, cli(ctx, m, "", "cancel", "q_nope").code)
	})
}

const (
	agentToken = "agent-secret-0123456789"
	aliceToken = "alice-secret-0123456789"
)

func withTokens(c *config.Config, _ *Main) {
	c.Tokens = []config.Token{
		{Name: "agent", Token: agentToken},
		{Name: "alice", Token: aliceToken, Scopes: []string{"answer"}},
	}
}

func TestForbiddenExitsNine(t *testing.T) {
	m := startMain(t, withTokens)
	ctx := context.Background()
	agent, alice := cliOpts{token: agentToken}, cliOpts{token: aliceToken}

	asked := cliWith(t, ctx, m, agent, "ask", "Deploy?", "--approval", "--no-wait", "--run", "deploy")
	require.Equal(t, exitNeedsInput, asked.code, asked.stderr)
	qs, err := m.Service.Questions.Questions(principaltest.As(ctx, "admin:test"), hitl.QuestionFilter{RunID: "deploy"})
	require.NoError(t, err)
	require.Len(t, qs, 1)

	t.Run("an ask-only token answering exits 9", func(t *testing.T) {
		r := cliWith(t, ctx, m, agent, "answer", qs[0].ID, "approve")
		assert.Equal(t, exitForbidden, r.code, r.stderr)
		assert.Contains(t, r.stderr, "lacks the answer scope")
	})
	t.Run("a bad token exits 1 and names HITL_TOKEN", func(t *testing.T) {
		r := cliWith(t, ctx, m, cliOpts{token: "not-a-token-0123456789"}, "pending")
		assert.Equal(t, exitFailure, r.code, r.stderr)
		assert.Contains(t, r.stderr, "HITL_TOKEN is not one of the service's tokens")
	})
	t.Run("no token exits 1 and says to set HITL_TOKEN", func(t *testing.T) {
		r := cliWith(t, ctx, m, cliOpts{}, "pending")
		assert.Equal(t, exitFailure, r.code, r.stderr)
		assert.Contains(t, r.stderr, "set HITL_TOKEN to yours")
	})
	t.Run("a token with the answer scope answers", func(t *testing.T) {
		r := cliWith(t, ctx, m, alice, "answer", qs[0].ID, "approve")
		assert.Equal(t, 0, r.code, r.stderr)
		done := cliWith(t, ctx, m, agent, "ask", "Deploy?", "--approval", "--no-wait", "--run", "deploy")
		assert.Equal(t, 0, done.code, done.stderr)
		assert.Equal(t, "approved\n", done.stdout)
	})
}

func TestAskRateLimited(t *testing.T) {
	m := startMain(t, func(c *config.Config, _ *Main) { c.RateLimits.RunPerMinute = 1 })
	ctx := principaltest.As(context.Background(), "admin:test")
	first := cli(ctx, m, "", "ask", "Region?", "--no-wait", "--run", "limited")
	require.Equal(t, exitNeedsInput, first.code, first.stderr)

	t.Run("--no-wait over the limit exits 8 at once", func(t *testing.T) {
		r := cli(ctx, m, "", "ask", "Zone?", "--no-wait", "--run", "limited")
		assert.Equal(t, exitRateLimited, r.code, r.stderr)
		assert.Contains(t, r.stderr, "too fast")
	})
	t.Run("a waiting ask over the limit says so and waits until interrupted", func(t *testing.T) {
		timer := newManualTimer()
		cctx, cancel := context.WithCancel(ctx)
		ch := startCLIWith(cctx, m, cliOpts{after: timer.after}, "ask", "Zone?", "--run", "limited")
		assert.GreaterOrEqual(t, timer.waited(t), time.Second)
		cancel()
		r := result(t, ch)
		assert.Equal(t, exitInterrupted, r.code, r.stderr)
		assert.Contains(t, r.stderr, "hitl: rate limited; retrying in ")
	})
}

func TestAskRetriesAfterRateLimit(t *testing.T) {
	m := startMain(t)
	ctx := principaltest.As(context.Background(), "admin:test")
	proxy := newFrontProxy(t, m.URL())
	var refused atomic.Int32
	proxy.intercept(func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/questions") || refused.Add(1) > 1 {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "2")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"code":"rate_limited","message":"asks too fast"}`))
		return true
	})
	timer := newManualTimer()
	ch := startCLIWith(ctx, m, cliOpts{url: proxy.srv.URL, after: timer.after}, "ask", "Name?", "--run", "retry")
	d := timer.waited(t)
	assert.Contains(t, []time.Duration{time.Second, 2 * time.Second}, d, "Retry-After, or a second when the client does not say")
	timer.fire <- time.Now()
	q := waitPending(t, m, "retry")
	require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "Ada").code)
	r := result(t, ch)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "Ada\n", r.stdout)
	assert.Contains(t, r.stderr, "hitl: rate limited; retrying in "+d.String())
}

// TestExitCodeTable: the exit codes are written once. Every exit*
// constant in exitcode.go is in exitCodeWords once, in order, and
// docs/cli.md's table has a row for each and for nothing else.
func TestExitCodeTable(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "exitcode.go", nil, 0)
	require.NoError(t, err)
	var consts []int
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			for i, n := range s.(*ast.ValueSpec).Names {
				if strings.HasPrefix(n.Name, "exit") {
					lit := s.(*ast.ValueSpec).Values[i].(*ast.BasicLit)
					v, err := strconv.Atoi(lit.Value)
					require.NoError(t, err)
					consts = append(consts, v)
				}
			}
		}
	}
	var table []int
	for _, c := range exitCodeWords {
		table = append(table, c.code)
	}
	assert.Equal(t, consts, table, "exitCodeWords lists every exit code once, in order")

	doc, err := os.ReadFile("../../docs/cli.md")
	require.NoError(t, err)
	sec := string(doc)[strings.Index(string(doc), "## Exit codes"):]
	if end := strings.Index(sec[3:], "\n## "); end >= 0 {
		sec = sec[:end+3]
	}
	var rows []int
	for _, m := range regexp.MustCompile(`(?m)^\| (\d+) \|`).FindAllStringSubmatch(sec, -1) {
		v, _ := strconv.Atoi(m[1])
		rows = append(rows, v)
	}
	assert.Equal(t, table, rows, "docs/cli.md's exit code table")
	assert.Contains(t, usage, exitCodesText())
}
