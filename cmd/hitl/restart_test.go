package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gatedClock is a fake clock whose Now blocks until the gate opens. The
// sweep starts with Now, and reads of the API never call it, so the
// first sweep is held at its start while a test uses the API.
type gatedClock struct {
	*clocktest.Clock
	gate    chan struct{} // closed by open
	waiting chan struct{} // closed when a caller first waits at the gate
	once    sync.Once
	opened  sync.Once
}

var _ hitl.Clock = (*gatedClock)(nil)

func newGatedClock(now time.Time) *gatedClock {
	return &gatedClock{Clock: clocktest.New(now), gate: make(chan struct{}), waiting: make(chan struct{})}
}

func (c *gatedClock) Now() time.Time {
	select {
	case <-c.gate:
	default:
		c.once.Do(func() { close(c.waiting) })
		<-c.gate
	}
	return c.Clock.Now()
}

func (c *gatedClock) open() { c.opened.Do(func() { close(c.gate) }) }

// overdueDB writes n questions that timed out while no service ran: their
// 30-minute deadlines passed an hour before now.
func overdueDB(t testing.TB, path string, n int, now time.Time) {
	t.Helper()
	o := openOffline(t, path, clocktest.New(now.Add(-time.Hour)))
	o.ask(t, "run-overdue", n)
	o.close(t)
}

// startOn runs Main on the database at path with clock, and fails if Run
// does not return within a few seconds.
func startOn(t testing.TB, path string, clock hitl.Clock) *Main {
	t.Helper()
	cfg := config.Default()
	cfg.Listen = "127.0.0.1:0"
	cfg.DB = path
	m := NewMain(cfg, discardLogger())
	m.Clock = clock
	done := make(chan error, 1)
	go func() { done <- m.Run(context.Background()) }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return: the port did not open")
	}
	return m
}

// discardLogger logs nowhere, or to stderr with HITL_TEST_LOG set.
func discardLogger() *slog.Logger {
	var w io.Writer = io.Discard
	if os.Getenv("HITL_TEST_LOG") != "" {
		w = os.Stderr
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func TestRestartWithOverdueQuestions(t *testing.T) {
	// Timing every one out takes a commit each (about 2 ms, 3 under -race):
	// 2,000 keeps the suite within seconds; BenchmarkRestartOverdue goes
	// further.
	overdue := 2000
	if testing.Short() {
		overdue = 200
	}
	now := time.Now()
	path := filepath.Join(t.TempDir(), "hitl.db")
	overdueDB(t, path, overdue, now)

	clock := newGatedClock(now)
	m := startOn(t, path, clock)
	t.Cleanup(func() {
		clock.open() // a failed test must not leave the sweep held
		require.NoError(t, m.Close())
	})
	ctx := context.Background()
	select {
	case <-clock.waiting:
	case <-time.After(10 * time.Second):
		t.Fatal("the first sweep did not start")
	}

	t.Run("the API serves while the first sweep has yet to settle anything", func(t *testing.T) {
		c := client.NewClient(m.URL(), "")
		h, err := c.Health(ctx)
		require.NoError(t, err)
		assert.True(t, h.OK)
		n, err := m.DB.CountQuestions(ctx, hitl.StatusPending)
		require.NoError(t, err)
		assert.Equal(t, overdue, n, "every overdue question is still pending")

		r := cli(ctx, m, "", "pending")
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Contains(t, r.stdout, fmt.Sprintf("…and %d more: hitl pending --all", overdue-hitl.DefaultPageSize))
		assert.Equal(t, 1+hitl.DefaultPageSize+1, strings.Count(r.stdout, "\n"), "header, the first page, how many more")
	})
	t.Run("hitl pending --all lists every one of them, once", func(t *testing.T) {
		r := cli(ctx, m, "", "pending", "--all")
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Equal(t, 1+overdue, strings.Count(r.stdout, "\n"), "header and every question")
		assert.NotContains(t, r.stdout, "more: hitl pending --all")

		r = cli(ctx, m, "", "pending", "--all", "--json")
		require.Equal(t, exitOK, r.code, r.stderr)
		var out struct {
			Questions  []hitl.Question `json:"questions"`
			NextCursor string          `json:"nextCursor"`
		}
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &out))
		seen := map[string]bool{}
		for _, q := range out.Questions {
			seen[q.ID] = true
		}
		assert.Len(t, seen, overdue)
		assert.Empty(t, out.NextCursor)
	})
	t.Run("hitl pending --json gives the cursor of the next page", func(t *testing.T) {
		r := cli(ctx, m, "", "pending", "--json")
		require.Equal(t, exitOK, r.code, r.stderr)
		var out struct {
			Questions  []hitl.Question `json:"questions"`
			NextCursor string          `json:"nextCursor"`
		}
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &out))
		assert.Len(t, out.Questions, hitl.DefaultPageSize)
		assert.NotEmpty(t, out.NextCursor)
	})

	clock.open()
	t.Run("then the sweep times every one of them out", func(t *testing.T) {
		deadline := time.After(60 * time.Second)
		for {
			changed := m.Service.Log.Changed()
			n, err := m.DB.CountQuestions(ctx, hitl.StatusTimeout)
			require.NoError(t, err)
			if n == overdue {
				break
			}
			select {
			case <-changed:
			case <-deadline:
				t.Fatalf("%d of %d overdue questions timed out", n, overdue)
			}
		}
		n, err := m.DB.CountQuestions(ctx, hitl.StatusPending)
		require.NoError(t, err)
		assert.Zero(t, n)
	})
}

// BenchmarkRestartOverdue restarts the service on a database holding n
// questions that came due while it was down: how long until the API
// answers (Run returns and GET /healthz succeeds), and how long until the
// background sweep has timed every one of them out.
func BenchmarkRestartOverdue(b *testing.B) {
	for _, n := range []int{0, 3000, 10000} {
		b.Run(fmt.Sprintf("overdue=%d", n), func(b *testing.B) {
			template := filepath.Join(b.TempDir(), "template.db")
			overdueDB(b, template, n, time.Now())
			data, err := os.ReadFile(template)
			require.NoError(b, err)
			ctx := context.Background()
			var serve, sweep time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				path := filepath.Join(b.TempDir(), "hitl.db")
				writeSynced(b, path, data) // else Open's first fsync flushes the copy
				b.StartTimer()
				start := time.Now()
				m := startOn(b, path, hitl.SystemClock{})
				_, err := client.NewClient(m.URL(), "").Health(ctx)
				require.NoError(b, err)
				serve += time.Since(start)
				for {
					changed := m.Service.Log.Changed()
					done, err := m.DB.CountQuestions(ctx, hitl.StatusTimeout)
					require.NoError(b, err)
					if done == n {
						break
					}
					select {
					case <-changed:
					case <-time.After(5 * time.Minute):
						b.Fatalf("%d of %d timed out", done, n)
					}
				}
				sweep += time.Since(start)
				b.StopTimer()
				require.NoError(b, m.Close())
				b.StartTimer()
			}
			b.ReportMetric(float64(serve.Microseconds())/1000/float64(b.N), "ms-to-serve")
			if n > 0 {
				b.ReportMetric(sweep.Seconds()/float64(b.N), "s-to-sweep-all")
				b.ReportMetric(float64(sweep.Microseconds())/1000/float64(b.N*n), "ms-per-timeout")
			}
		})
	}
}

// writeSynced writes data to a new file at path and syncs it.
func writeSynced(tb testing.TB, path string, data []byte) {
	tb.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	require.NoError(tb, err)
	_, err = f.Write(data)
	require.NoError(tb, err)
	require.NoError(tb, f.Sync())
	require.NoError(tb, f.Close())
}
