package postgres

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hitlbot/hitl/internal/pgtest"
)

// BenchmarkLimiterAllow takes a token from a principal's and a run's
// bucket in the database, as every question create does on PostgreSQL
// (both limits on, 64 principals and 64 runs, never over the limit): what
// sharing the limits across replicas adds to a create.
func BenchmarkLimiterAllow(b *testing.B) {
	db, err := Open(context.Background(), pgtest.DB(b))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	l := db.Limiter("bench", 1_000_000, 1_000_000, nil)
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		if d := l.Allow(fmt.Sprintf("api:p%d", i%64), fmt.Sprintf("run-%d", i%64)); d != 0 {
			b.Fatalf("limited: %s", d)
		}
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/float64(b.N), "µs/allow")
	b.StopTimer()
	// Allow allows when the database fails: check that it took tokens.
	var n int
	if err := db.pool.QueryRow(context.Background(), `SELECT count(*) FROM rate_buckets WHERE key LIKE 'bench|%' AND tokens <= (1000000 + 5) / 6 - 1`).Scan(&n); err != nil || n != min(b.N, 64)*2 {
		b.Fatalf("%d buckets charged (%v), want %d", n, err, min(b.N, 64)*2)
	}
}
