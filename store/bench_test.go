package store

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/service"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/notify"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// benchQuestion is what the create benchmark asks.
var benchQuestion = hitl.NewQuestion{
	Question: "Deploy build 4812 to production? The canary has been green for 30 minutes.",
	Options: []hitl.Option{
		{Label: "Deploy", Value: "deploy"}, {Label: "Wait", Value: "wait"}, {Label: "Roll back", Value: "rollback"},
	},
	Context:   &hitl.QuestionContext{Agent: "release-bot", ProjectName: "shop", CurrentStep: "canary"},
	Assignees: []string{"U024BE7LH"},
	Channel:   "C024BE91L",
}

const benchParallelism = 8

// rawBatchDelay is the MaxBatchDelay of the raw bbolt Batch side of the
// benchmarks: 1 ms, against bbolt's default of 10 ms, which is about ten
// commits on an SSD.
const rawBatchDelay = time.Millisecond

// BenchmarkCreateQuestion measures durable creates through Service.Ask.
// Concurrent callers share commits through bbolt's Batch.
func BenchmarkCreateQuestion(b *testing.B) {
	db, err := Open(filepath.Join(b.TempDir(), "hitl.db"))
	require.NoError(b, err)
	defer db.Close()
	svc := service.NewService(db, service.ServiceConfig{Notifier: notify.New()})
	ctx := principaltest.As(context.Background(), "api:bench")
	b.SetParallelism(benchParallelism)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, _, err := svc.Questions.Create(ctx, "job-bench", benchQuestion); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "questions/s")
}

// BenchmarkRawBoltCommit is the baseline for BenchmarkCreateQuestion: one
// db.Update (one durable commit) per value of the size of a stored question.
func BenchmarkRawBoltCommit(b *testing.B) {
	benchRawBolt(b, (*bolt.DB).Update)
}

// BenchmarkRawBoltBatch is the same with db.Batch, the lower bound of what
// the store can reach with shared commits.
func BenchmarkRawBoltBatch(b *testing.B) {
	benchRawBolt(b, (*bolt.DB).Batch)
}

func benchRawBolt(b *testing.B, commit func(*bolt.DB, func(*bolt.Tx) error) error) {
	q, err := benchQuestion.Build("q_0123456789abcdef", "job-bench", "api:bench", time.Now().UTC(), hitl.DefaultTimeouts())
	require.NoError(b, err)
	value, err := json.Marshal(q)
	require.NoError(b, err)
	bdb, err := bolt.Open(filepath.Join(b.TempDir(), "raw.db"), 0o600, boltOptions())
	require.NoError(b, err)
	defer bdb.Close()
	bdb.MaxBatchDelay = rawBatchDelay
	require.NoError(b, bdb.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucket([]byte("raw"))
		return err
	}))
	var n atomic.Uint64
	b.SetParallelism(benchParallelism)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			key := u64(n.Add(1))
			err := commit(bdb, func(tx *bolt.Tx) error { return tx.Bucket([]byte("raw")).Put(key, value) })
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "commits/s")
	b.ReportMetric(float64(len(value)), "value-bytes")
}

// BenchmarkSweepNoneDue measures a sweep over 100,000 pending questions of
// which none is due: it should read one index key.
func BenchmarkSweepNoneDue(b *testing.B) {
	const pending = 100_000
	db, err := Open(filepath.Join(b.TempDir(), "hitl.db"))
	require.NoError(b, err)
	defer db.Close()
	clock := newClock()
	loadPending(b, db, pending, clock.Now())
	svc := newService(db, clock)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		n, err := svc.Questions.SweepExpired(ctx)
		if err != nil || n != 0 {
			b.Fatalf("sweep: %d, %v", n, err)
		}
	}
}

// loadPending writes n pending questions, due in 1 to 24 hours after now,
// in a few large transactions.
func loadPending(b *testing.B, db *DB, n int, now time.Time) {
	b.Helper()
	const perTx = 20_000
	for start := 0; start < n; start += perTx {
		err := db.bolt.Update(func(tx *bolt.Tx) error {
			for i := start; i < min(start+perTx, n); i++ {
				q, err := benchQuestion.Build(fmt.Sprintf("q_%08d", i), fmt.Sprintf("job-%d", i%100), "api:bench",
					now.Add(-time.Duration(n-i)*time.Millisecond), hitl.DefaultTimeouts())
				if err != nil {
					return err
				}
				at := now.Add(time.Hour + time.Duration(i%1000)*time.Minute)
				q.TimeoutAt = &at
				data, err := json.Marshal(q)
				if err != nil {
					return err
				}
				if err := putQuestion(tx, nil, q, data, nil); err != nil {
					return err
				}
			}
			return nil
		})
		require.NoError(b, err)
	}
}
