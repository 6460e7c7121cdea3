package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/stretchr/testify/require"
)

// startMain runs the real service on 127.0.0.1:0 with a temp database.
func startMain(t testing.TB, mutate ...func(*config.Config, *Main)) *Main {
	t.Helper()
	m := startMainNoCleanup(t, mutate...)
	t.Cleanup(func() { require.NoError(t, m.Close()) })
	return m
}

// startMainNoCleanup is startMain for a test that closes the service itself.
func startMainNoCleanup(t testing.TB, mutate ...func(*config.Config, *Main)) *Main {
	t.Helper()
	cfg := config.Default()
	cfg.Listen = "127.0.0.1:0"
	cfg.DB = filepath.Join(t.TempDir(), "hitl.db")
	var logw io.Writer = io.Discard
	if os.Getenv("HITL_TEST_LOG") != "" {
		logw = os.Stderr
	}
	m := NewMain(cfg, slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: slog.LevelDebug})))
	for _, f := range mutate {
		f(&m.Config, m)
	}
	require.NoError(t, m.Config.Validate())
	require.NoError(t, m.Run(context.Background()))
	return m
}

// dbFile puts the database in a file of the test's temp dir: every Main
// started with it opens that one file (a restart of the service).
func dbFile(t testing.TB) func(*config.Config, *Main) {
	db := filepath.Join(t.TempDir(), "hitl.db")
	return func(c *config.Config, _ *Main) { c.DB = db }
}

// cli runs one hitl command against m and returns its exit code and output.
type cliResult struct {
	code           int
	stdout, stderr string
}

func cli(ctx context.Context, m *Main, stdin string, args ...string) cliResult {
	var out, errb syncBuffer
	e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, getenv: func(k string) string {
		switch k {
		case "HITL_URL":
			return m.URL()
		case "USER":
			return "tester"
		}
		return ""
	}}
	code := run(ctx, args, e)
	return cliResult{code, out.String(), errb.String()}
}

// startCLI runs a command in the background.
func startCLI(ctx context.Context, m *Main, stdin io.Reader, args ...string) <-chan cliResult {
	ch := make(chan cliResult, 1)
	go func() {
		var out, errb syncBuffer
		e := &env{stdin: stdin, stdout: &out, stderr: &errb, getenv: func(k string) string {
			if k == "HITL_URL" {
				return m.URL()
			}
			return ""
		}}
		code := run(ctx, args, e)
		ch <- cliResult{code, out.String(), errb.String()}
	}()
	return ch
}

// waitPending waits until a question is pending in run, via the service's
// change notifications (no polling with sleeps).
func waitPending(t *testing.T, m *Main, run string) *hitl.Question {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		changed := m.Service.Log.Changed()
		qs, err := m.Service.Questions.Questions(principaltest.As(context.Background(), "admin:test"), hitl.QuestionFilter{RunID: run, Status: hitl.StatusPending})
		require.NoError(t, err)
		if len(qs) > 0 {
			return qs[len(qs)-1]
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("no pending question in run %s", run)
		}
	}
}

func result(t *testing.T, ch <-chan cliResult) cliResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(30 * time.Second): // generous: a loaded CI machine, never a wait of its own
		t.Fatal("command did not finish")
		return cliResult{}
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
