package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/store"
	"github.com/stretchr/testify/require"
)

// openQueued opens a store holding n queued deliveries spread over 100
// targets (or n, if fewer), enqueued in a few large commits.
func openQueued(b *testing.B, n int) *store.DB {
	b.Helper()
	db, err := store.Open(filepath.Join(b.TempDir(), "hitl.db"))
	require.NoError(b, err)
	b.Cleanup(func() { db.Close() })
	const perCommit = 10_000
	for start := 0; start < n; start += perCommit {
		ds := make([]hitl.Delivery, 0, perCommit)
		for i := start; i < min(start+perCommit, n); i++ {
			ds = append(ds, hitl.Delivery{Kind: "post", QuestionID: fmt.Sprintf("q_%08d", i), Target: fmt.Sprintf("C%05d", i%100)})
		}
		require.NoError(b, db.Enqueue(context.Background(), uint64(start+len(ds)), ds))
	}
	return db
}

// BenchmarkOutboxNextDelivery measures picking a target's next delivery
// with 100 and with 100,000 deliveries queued (over 100 targets), in the
// same run, and reports the ratio (large ÷ small). It leaves out the Slack
// call and the recording that follow, and the dispatcher's read of the
// targets with work (one seek per target).
func BenchmarkOutboxNextDelivery(b *testing.B) {
	ctx := context.Background()
	small, large := openQueued(b, 100), openQueued(b, 100_000)
	var smallT, largeT time.Duration
	i := 0
	for b.Loop() {
		target := fmt.Sprintf("C%05d", i%100)
		i++
		start := time.Now()
		if _, err := small.NextDelivery(ctx, target); err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		if _, err := large.NextDelivery(ctx, target); err != nil {
			b.Fatal(err)
		}
		smallT += mid.Sub(start)
		largeT += time.Since(mid)
	}
	b.ReportMetric(float64(smallT.Nanoseconds())/float64(i), "ns/next@100")
	b.ReportMetric(float64(largeT.Nanoseconds())/float64(i), "ns/next@100k")
	b.ReportMetric(float64(largeT)/float64(smallT), "ratio")
}
