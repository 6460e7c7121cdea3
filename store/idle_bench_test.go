package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/hitlbot/hitl/sweeper"
	"github.com/stretchr/testify/require"
)

// BenchmarkSweepWorkNoneDue measures the whole sweep the sweeper runs
// every second (time out, flush refusals, retention, learned rules) over
// 100,000 pending questions of which none is due and nothing is old
// enough to prune: it should be a few reads and commit nothing
// (commits/op).
func BenchmarkSweepWorkNoneDue(b *testing.B) {
	const pending = 100_000
	db, err := Open(filepath.Join(b.TempDir(), "hitl.db"))
	require.NoError(b, err)
	defer db.Close()
	clock := newClock()
	loadPending(b, db, pending, clock.Now())
	sweep := sweeper.Work(lifecycleOf(newService(db, clock)), 30*24*time.Hour)
	ctx := context.Background()
	before := lastTxID(b, db)
	b.ResetTimer()
	for b.Loop() {
		n, err := sweep(ctx)
		if err != nil || n != 0 {
			b.Fatalf("sweep: %d, %v", n, err)
		}
	}
	b.StopTimer()
	// TestIdleSweepWritesNothing asserts none; this shows how many.
	b.ReportMetric(float64(lastTxID(b, db)-before)/float64(b.N), "commits/op")
}
