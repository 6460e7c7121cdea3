package postgres

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/pgtest"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/store"
)

// BenchmarkDurableCreates creates questions through the service with 16
// concurrent askers, on PostgreSQL and on a bbolt file in the same run,
// and reports both rates and their ratio. Every create is committed
// (PostgreSQL: synchronous_commit on, fsync on; bbolt: fsync'd) before it
// returns.
func BenchmarkDurableCreates(b *testing.B) {
	ctx := context.Background()
	pg, bolt := pgAndBolt(b)
	rate := func(st hitl.Store) float64 {
		svc := service.NewService(st, service.ServiceConfig{Notifier: notify.New(), Clock: clocktest.New(time.Now())})
		agent := auth.WithPrincipal(ctx, auth.TokenPrincipal("agent", nil, ""))
		var next atomic.Int64
		var wg sync.WaitGroup
		start := time.Now()
		for range 16 {
			wg.Go(func() {
				for i := next.Add(1); i <= int64(b.N); i = next.Add(1) {
					if _, _, err := svc.Questions.Create(agent, fmt.Sprintf("run-%d", i%64), hitl.NewQuestion{Question: "Deploy?"}); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		return float64(b.N) / time.Since(start).Seconds()
	}
	b.ResetTimer()
	p := rate(pg)
	o := rate(bolt)
	b.ReportMetric(p, "pg-creates/s")
	b.ReportMetric(o, "bbolt-creates/s")
	b.ReportMetric(p/o, "pg/bbolt")
}

// pgAndBolt opens a fresh PostgreSQL database and a bbolt file, closed
// when b ends: the two stores a benchmark compares in one run.
func pgAndBolt(b *testing.B) (*DB, *store.DB) {
	b.Helper()
	pg, err := Open(context.Background(), pgtest.DB(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = pg.Close() })
	bolt, err := store.Open(filepath.Join(b.TempDir(), "hitl.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = bolt.Close() })
	return pg, bolt
}

// fillQuestions inserts n questions straight into the table (with their
// JSON as the store writes it): 1 in 2 pending (a page of 50 at 100), 100 runs.
func fillQuestions(b *testing.B, db *DB, n int) {
	b.Helper()
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC).UnixNano()
	_, err := db.pool.Exec(context.Background(), fmt.Sprintf(`INSERT INTO questions (id, job_id, status, type, asker, asker_user, created_ns,
		timeout_ns, responded_ns, responded_by, pending, unassigned, waits, sealed, data)
		SELECT 'q_' || lpad(i::text, 8, '0'), 'run-' || (i %% 100), st, 'blocking', 'api:agent', '', %[1]d + i * 1000000,
			CASE WHEN st = 'pending' THEN %[1]d + i * 2000000 END, CASE WHEN st <> 'pending' THEN %[1]d + i * 1000000 + 5 END,
			CASE WHEN st <> 'pending' THEN 'slack:U0ALICE' END, st = 'pending', st = 'pending', st = 'pending', false,
			convert_to(format('{"id":"q_%%s","jobId":"run-%%s","type":"blocking","question":"Deploy build %%s to production?",'
				'"responseType":"text","status":"%%s","timeoutAt":null,"createdAt":"2026-11-22T10:00:00Z","asker":"api:agent"}',
				lpad(i::text, 8, '0'), i %% 100, i, st), 'UTF8')
		FROM (SELECT i, CASE WHEN i %% 2 = 0 THEN 'pending' ELSE 'answered' END AS st FROM generate_series(1::bigint, %[2]d) i) s`, t0, n))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := db.pool.Exec(context.Background(), `ANALYZE`); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkPendingPage reads a page of 50 of the pending list (the first
// page and one after a cursor in the middle) from a database of 100,000
// questions and from one of 100, in the same run, and reports the ratio.
func BenchmarkPendingPage(b *testing.B) {
	ctx := context.Background()
	page := func(n int) time.Duration {
		db, err := Open(ctx, pgtest.DB(b))
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		fillQuestions(b, db, n)
		first, err := db.Questions(ctx, hitl.QuestionFilter{Status: hitl.StatusPending, Limit: 50})
		if err != nil || len(first.Questions) == 0 {
			b.Fatal(err)
		}
		mid := hitl.QuestionFilter{Status: hitl.StatusPending, Limit: 50, Cursor: encodeCursor(first.Questions[0].CreatedAt.UnixNano(), "")}
		if n > 1000 {
			// The cursor of a page half way down the list.
			var at int64
			var id string
			if err := db.pool.QueryRow(ctx, `SELECT created_ns, id FROM questions WHERE status = 'pending' ORDER BY created_ns, id OFFSET $1 LIMIT 1`, n/20).Scan(&at, &id); err != nil {
				b.Fatal(err)
			}
			mid.Cursor = encodeCursor(at, id)
		}
		start := time.Now()
		for i := range b.N {
			f := hitl.QuestionFilter{Status: hitl.StatusPending, Limit: 50}
			if i%2 == 1 {
				f = mid
			}
			p, err := db.Questions(ctx, f)
			if err != nil || len(p.Questions) == 0 {
				b.Fatalf("page: %d questions, %v", len(p.Questions), err)
			}
		}
		return time.Since(start) / time.Duration(b.N)
	}
	b.ResetTimer()
	small, large := page(100), page(100_000)
	b.ReportMetric(float64(small.Microseconds()), "µs/page@100")
	b.ReportMetric(float64(large.Microseconds()), "µs/page@100k")
	b.ReportMetric(float64(large)/float64(small), "ratio")
}

// BenchmarkNextDelivery reads a target's next delivery with 100,000
// queued over 500 targets, each claimed by this replica (the steady state
// of a worker draining its targets: the claim is read, not renewed).
func BenchmarkNextDelivery(b *testing.B) {
	ctx := context.Background()
	db, err := Open(ctx, pgtest.DB(b))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.pool.Exec(ctx, `INSERT INTO deliveries (target, data)
		SELECT 'C' || (i % 500), convert_to(format('{"seq":%s,"kind":"post","questionId":"q_%s","target":"C%s"}', i, i, i % 500), 'UTF8')
		FROM generate_series(1, 100000) i`); err != nil {
		b.Fatal(err)
	}
	if _, err := db.pool.Exec(ctx, `ANALYZE`); err != nil {
		b.Fatal(err)
	}
	for i := range 500 { // this replica claims each target (one write each), as its workers would
		if _, err := db.NextDelivery(ctx, fmt.Sprintf("C%d", i)); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := range b.N {
		if _, err := db.NextDelivery(ctx, fmt.Sprintf("C%d", i%500)); err != nil {
			b.Fatal(err)
		}
	}
}
