package api

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/store"
)

// runFixtureQuestions is how many questions the replayed run holds: half
// asked before the rest of the log, half after.
const runFixtureQuestions = 10

// BenchmarkRunReplay measures GET /api/events?after=0&jobId=X over HTTP on
// loopback, on bbolt, until the run's last event has arrived: the replay
// of a run of 10 questions in a log of 100 or 100,000 questions (one
// event each; the run's questions are answered, so 20 events of the run).
func BenchmarkRunReplay(b *testing.B) {
	ratioBench(b, "log", 100, 100_000, func(b *testing.B, size int) func(*testing.B) time.Duration {
		e := newBoltEnv(b)
		run := func() {
			ctx := context.Background()
			asker := auth.WithPrincipal(ctx, auth.LocalPrincipal(""))
			for range runFixtureQuestions / 2 {
				q, _, err := e.svc.Questions.Create(asker, "job-replayed", textQ)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := e.svc.Questions.Answer(asker, q.ID, hitl.Response{Value: "Friday"}); err != nil {
					b.Fatal(err)
				}
			}
		}
		run()
		createMany(b, e.svc.Questions, "", size-runFixtureQuestions, fixtureWriters)
		run()
		last, err := e.db.LastSeq(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		hc := &http.Client{}
		url := e.base + "/api/events?after=0&jobId=job-replayed"
		want := fmt.Sprintf("id: %d", last)
		return func(b *testing.B) time.Duration {
			start := time.Now()
			replay(b, hc, url, want, 2*runFixtureQuestions)
			return time.Since(start)
		}
	})
}

// replay reads the SSE stream at url until the line want, checks that it
// held n events with an id, and closes it.
func replay(b *testing.B, hc *http.Client, url, want string, n int) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		b.Fatal(err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	sc := bufio.NewScanner(resp.Body)
	ids := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "id: ") {
			ids++
		}
		if line == want {
			if ids != n {
				b.Fatalf("the replay held %d events, want %d", ids, n)
			}
			return
		}
	}
	b.Fatalf("the stream ended before %q: %v", want, sc.Err())
}

// BenchmarkAskerPendingPage measures GET /api/questions/pending?limit=50
// over HTTP on loopback, on bbolt, for an ask-only token (which sees only
// its own questions) with 50 pending questions, asked after 0 or 20,000
// of its own that were answered.
func BenchmarkAskerPendingPage(b *testing.B) {
	ratioBench(b, "settled", 0, 20_000, func(b *testing.B, settled int) func(*testing.B) time.Duration {
		db, err := store.Open(filepath.Join(b.TempDir(), "hitl.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = db.Close() })
		svc := service.NewService(db, service.ServiceConfig{Notifier: notify.New()})
		asker := auth.TokenPrincipal("asker", []auth.Scope{auth.ScopeAsk}, "")
		srv := NewServer(servicesOf(svc), ServerConfig{Logger: discard, Tokens: []Token{{Secret: "tok-asker", Principal: asker}}})
		b.Cleanup(srv.Close)
		ts := httptest.NewServer(srv)
		b.Cleanup(ts.Close)

		ctx := auth.WithPrincipal(context.Background(), asker)
		person := auth.WithPrincipal(context.Background(), auth.LocalPrincipal(""))
		parallel(b, settled, func(i int) error {
			q, _, err := svc.Questions.Create(ctx, fmt.Sprintf("job-%d", i%100), textQ)
			if err != nil {
				return err
			}
			_, err = svc.Questions.Answer(person, q.ID, hitl.Response{Value: "Friday"})
			return err
		})
		parallel(b, 50, func(i int) error {
			_, _, err := svc.Questions.Create(ctx, "job-now", textQ)
			return err
		})
		hc := &http.Client{}
		url := ts.URL + "/api/questions/pending?limit=50"
		return func(b *testing.B) time.Duration {
			req, err := http.NewRequest(http.MethodGet, url, nil)
			if err != nil {
				b.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer tok-asker")
			start := time.Now()
			resp, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			var page struct {
				Questions []*hitl.Question `json:"questions"`
			}
			err = json.NewDecoder(resp.Body).Decode(&page)
			_ = resp.Body.Close()
			d := time.Since(start)
			if err != nil || len(page.Questions) != 50 {
				b.Fatalf("GET %s: %v, %d questions, want 50", url, err, len(page.Questions))
			}
			return d
		}
	})
}

// parallel runs fn(0) … fn(n-1) on fixtureWriters goroutines, so that
// they share commits.
func parallel(b *testing.B, n int, fn func(i int) error) {
	b.Helper()
	errs := make(chan error, fixtureWriters)
	var wg sync.WaitGroup
	for g := range fixtureWriters {
		wg.Go(func() {
			for i := g; i < n; i += fixtureWriters {
				if err := fn(i); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}
