package api

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/internal/principaltest"
)

// fixtureWriters is how many goroutines build a big fixture: bbolt's
// Batch lets them share commits, which makes 100,000 creates take seconds
// rather than minutes of lone fsyncs.
const fixtureWriters = 128

// latencies collects the duration of each operation of a benchmark.
type latencies []time.Duration

// p returns the q-quantile (0.5 for the median) in microseconds.
func (l latencies) p(q float64) float64 {
	s := slices.Clone(l)
	slices.Sort(s)
	return float64(s[min(len(s)-1, int(q*float64(len(s))))].Nanoseconds()) / 1e3
}

// ratioBench builds a fixture of each of two sizes, then measures op on
// each in a sub-benchmark per size (p50 and p99 latency), and in a third,
// "ratio", alternates them in one loop, so that a noisy machine slows
// both alike, and reports the ratio of the big size's median to the
// small one's.
func ratioBench(b *testing.B, name string, small, big int, setup func(b *testing.B, size int) func(b *testing.B) time.Duration) {
	ops := map[int]func(*testing.B) time.Duration{small: setup(b, small), big: setup(b, big)}
	runtime.GC() // the fixtures' garbage is not the measure's
	for _, size := range []int{small, big} {
		b.Run(fmt.Sprintf("%s=%d", name, size), func(b *testing.B) {
			var l latencies
			for b.Loop() {
				l = append(l, ops[size](b))
			}
			b.ReportMetric(l.p(0.5), "p50-µs")
			b.ReportMetric(l.p(0.99), "p99-µs")
		})
	}
	b.Run("ratio", func(b *testing.B) {
		var ls, lb latencies
		for b.Loop() {
			ls = append(ls, ops[small](b))
			lb = append(lb, ops[big](b))
		}
		b.ReportMetric(ls.p(0.5), fmt.Sprintf("%s=%d-p50-µs", name, small))
		b.ReportMetric(lb.p(0.5), fmt.Sprintf("%s=%d-p50-µs", name, big))
		b.ReportMetric(lb.p(0.5)/ls.p(0.5), fmt.Sprintf("p50-%d÷%d", big, small))
	})
}

// get fetches url and reads the body, failing on a status other than 200.
func get(b *testing.B, hc *http.Client, url string) {
	resp, err := hc.Get(url)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
}

// BenchmarkPendingPage measures GET /api/questions/pending?limit=50 (the
// first page, with the total) over HTTP on loopback, on a bbolt store
// holding 100 or 100,000 pending questions.
func BenchmarkPendingPage(b *testing.B) {
	ratioBench(b, "pending", 100, 100_000, func(b *testing.B, size int) func(*testing.B) time.Duration {
		e := newBoltEnv(b)
		createMany(b, e.svc.Questions, "", size, fixtureWriters)
		hc := &http.Client{}
		url := e.base + "/api/questions/pending?limit=50"
		return func(b *testing.B) time.Duration {
			start := time.Now()
			get(b, hc, url)
			return time.Since(start)
		}
	})
}

// BenchmarkAnswerInRun measures POST /api/questions/{id}/answer over HTTP
// on loopback, on bbolt, for a question of a run of 30,000 questions (it
// and 29,999 others, all pending) against the only question of its run.
// The question is created (untimed) just before it is answered.
func BenchmarkAnswerInRun(b *testing.B) {
	ratioBench(b, "run-questions", 1, 30_000, func(b *testing.B, size int) func(*testing.B) time.Duration {
		e := newBoltEnv(b)
		createMany(b, e.svc.Questions, "job-big", size-1, fixtureWriters)
		human := client.NewClient(e.base, "", client.WithUser("human"))
		ctx := principaltest.As(context.Background(), "api:test") // the run's owner (createMany)
		i := 0
		return func(b *testing.B) time.Duration {
			job := "job-big"
			if size == 1 {
				i++
				job = fmt.Sprintf("job-%d", i) // a run of one question each time
			}
			q, _, err := e.svc.Questions.Create(ctx, job, textQ)
			if err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			if _, err := human.Answer(context.Background(), q.ID, hitl.Response{Value: "Friday"}); err != nil {
				b.Fatal(err)
			}
			return time.Since(start)
		}
	})
}

// createMany creates n questions in job (job-N for the Nth when job is
// empty) from writers goroutines, so that they share commits, and returns
// their ids.
func createMany(tb testing.TB, svc hitl.QuestionService, job string, n, writers int) []string {
	tb.Helper()
	ctx := principaltest.As(context.Background(), "api:test")
	ids := make([]string, n)
	errs := make(chan error, writers)
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := g; i < n; i += writers {
				j := job
				if j == "" {
					j = fmt.Sprintf("job-%d", i)
				}
				q, _, err := svc.Create(ctx, j, textQ)
				if err != nil {
					errs <- err
					return
				}
				ids[i] = q.ID
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		tb.Fatal(err)
	}
	return ids
}
