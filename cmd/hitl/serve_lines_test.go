package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/config"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lineBuffer is an output that tells a waiting test each time it is
// written to.
type lineBuffer struct {
	mu    sync.Mutex
	b     strings.Builder
	wrote chan struct{}
}

func newLineBuffer() *lineBuffer { return &lineBuffer{wrote: make(chan struct{}, 1)} }

func (l *lineBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case l.wrote <- struct{}{}:
	default:
	}
	return l.b.Write(p)
}

func (l *lineBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// waitFor waits until the output holds want, or fails after a deadline.
func (l *lineBuffer) waitFor(t *testing.T, want string) string {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		if s := l.String(); strings.Contains(s, want) {
			return s
		}
		select {
		case <-l.wrote:
		case <-deadline:
			t.Fatalf("output never held %q; it holds:\n%s", want, l.String())
		}
	}
}

// startServe runs hitl serve ARGS on 127.0.0.1:0 and a temp database, and
// returns its URL and stdout.
func startServe(t *testing.T, args ...string) (string, *lineBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out, errb := newLineBuffer(), newLineBuffer()
	e := &env{stdin: strings.NewReader(""), stdout: out, stderr: errb, getenv: func(string) string { return "" }}
	args = append([]string{"serve", "--listen", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "hitl.db")}, args...)
	done := make(chan int, 1)
	go func() { done <- run(ctx, args, e) }()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			assert.Equal(t, exitOK, code, errb.String())
		case <-time.After(20 * time.Second):
			t.Error("hitl serve did not stop")
		}
	})
	started := errb.waitFor(t, "web inbox at ")
	m := regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+)`).FindStringSubmatch(started)
	require.NotNil(t, m, started)
	return m[1], out
}

// TestServePrintsQuestionLines: without Slack, hitl serve prints a line
// per question asked (who, what, its id, how to answer) and per question
// settled; testdata/serve/lines.golden holds them, ids numbered in order.
func TestServePrintsQuestionLines(t *testing.T) {
	url, out := startServe(t)
	ctx := context.Background()
	o := cliOpts{url: url}
	do := func(code int, args ...string) cliResult {
		t.Helper()
		r := result(t, startCLIWith(ctx, nil, o, args...))
		require.Equal(t, code, r.code, "hitl %s: %s", strings.Join(args, " "), r.stderr)
		return r
	}
	id := regexp.MustCompile(`q_[0-9a-z]{16}`)
	asked := func(args ...string) string {
		t.Helper()
		r := do(exitNeedsInput, append(args, "--no-wait")...)
		q := id.FindString(r.stderr)
		require.NotEmpty(t, q, r.stderr)
		out.waitFor(t, q+" (run")
		return q
	}
	q1 := asked("ask", "Which database should I migrate?", "--options", "prod,staging", "--run", "demo")
	do(exitOK, "answer", q1, "staging")
	out.waitFor(t, "Answered "+q1)
	q2 := asked("ask", "Deploy to production?", "--approval", "--run", "demo")
	do(exitOK, "answer", q2, "deny", "--text", "freeze week")
	out.waitFor(t, "Answered "+q2)
	q3 := asked("ask", "Paste the API key", "--sensitive", "--run", "keys")
	do(exitOK, "cancel", q3, "--reason", "wrong run")
	out.waitFor(t, "Cancelled "+q3)
	q4 := asked("ask", "Clear the screen?\x1b[2J", "--yes-no", "--run", "demo")
	do(exitOK, "answer", q4, "yes")
	got := out.waitFor(t, "Answered "+q4)

	n := 0
	seen := map[string]string{}
	got = id.ReplaceAllStringFunc(got, func(s string) string {
		if seen[s] == "" {
			n++
			seen[s] = "q_" + strings.Repeat(string(rune('0'+n)), 16)
		}
		return seen[s]
	})
	golden := filepath.Join("testdata", "serve", "lines.golden")
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "go test ./cmd/hitl -run TestServePrintsQuestionLines -update writes it")
	assert.Equal(t, string(want), got)
}

func TestServePrintsQuestionLinesOnlyWithoutSlack(t *testing.T) {
	slack := config.Default()
	slack.Slack.AppToken, slack.Slack.BotToken = "xapp-1", "xoxb-1"
	for _, tc := range []struct {
		name  string
		quiet bool
		cfg   config.Config
		want  bool
	}{
		{"without Slack", false, config.Default(), true},
		{"without Slack, --quiet", true, config.Default(), false},
		{"with Slack", false, slack, false},
		{"with Slack, --quiet", true, slack, false},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, printsQuestionLines(tc.quiet, tc.cfg)) })
	}
}

// The lines a timeout prints, with a default and without.
func TestQuestionLineOfATimeout(t *testing.T) {
	for _, tc := range []struct {
		name string
		ev   *hitl.Event
		want string
	}{
		{"with a default", &hitl.Event{Type: hitl.EventQuestionTimeout, QuestionID: "q_1", RunID: "r", Response: &hitl.Response{Value: "no"}},
			"Timed out q_1 (run r): nobody answered; the default no was used"},
		{"without", &hitl.Event{Type: hitl.EventQuestionTimeout, QuestionID: "q_1", RunID: "r"}, "Timed out q_1 (run r): nobody answered"},
		{"a cancel by the service", &hitl.Event{Type: hitl.EventQuestionCancelled, QuestionID: "q_1", RunID: "r", Actor: auth.ActorSystem, Reason: "the run ended"},
			"Cancelled q_1 (run r): the run ended"},
		{"not a question's", &hitl.Event{Type: hitl.EventStatus, RunID: "r"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, questionLine(tc.ev)) })
	}
}
