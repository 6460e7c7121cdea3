package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/storetest"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// retentionRounds is a steady load with retention on: each round asks
// and answers perRound questions (16 at a time, as concurrent agents
// would, unless serial), then the clock passes the retention and the
// sweep's Prune runs.
type retentionRounds struct {
	db    *DB
	svc   *service.Service
	clock *clocktest.Clock
	// serial asks one question at a time: how many pages a round leaves
	// then depends on the load alone, not on which read transactions the
	// scheduler kept open while pages were freed.
	serial bool
}

// retentionPeriod is the retention of the load; its length does not matter
// to the file, only that each round's questions are past it at the next.
const retentionPeriod = time.Hour

// size is what one round leaves behind.
type roundSize struct {
	file int64 // the file on disk (bbolt grows it in steps)
	used int64 // bbolt's high-water mark: pages ever allocated, free or not
	live int   // questions left after pruning
}

func newRetentionRounds(tb testing.TB) *retentionRounds {
	tb.Helper()
	db, err := Open(filepath.Join(tb.TempDir(), "hitl.db"))
	require.NoError(tb, err)
	clock := newClock()
	timeouts := hitl.DefaultTimeouts()
	timeouts.Min = time.Minute
	// The service audits, and prunes its audit trail behind a signed
	// checkpoint, as hitl serve with a seal key file does.
	svc := service.NewService(db, service.ServiceConfig{Notifier: notify.New(), Clock: clock, Timeouts: timeouts,
		NewID:      func() string { return fmt.Sprintf("q_%06d", lastID.Add(1)) },
		AuditTrail: db, AuditKey: service.AuditKeyOf([]byte("retention-test-key-0123456789abc"))})
	return &retentionRounds{db: db, svc: svc, clock: clock}
}

// round runs one round and reports the sizes after it.
func (r *retentionRounds) round(tb testing.TB, perRound int) roundSize {
	tb.Helper()
	r.load(tb, perRound)
	r.clock.Add(retentionPeriod + time.Minute)
	pruned, err := r.svc.Questions.Prune(context.Background(), retentionPeriod)
	require.NoError(tb, err)
	require.GreaterOrEqual(tb, pruned, perRound, "the round's questions are pruned")
	for {
		n, err := r.svc.Audit.PruneAudit(context.Background(), r.clock.Now().Add(-retentionPeriod), 1000)
		require.NoError(tb, err)
		if n == 0 {
			break
		}
	}
	return r.size(tb)
}

// load asks and answers n questions, 16 at a time (or one at a time).
func (r *retentionRounds) load(tb testing.TB, n int) {
	tb.Helper()
	if !r.serial {
		storetest.Parallel(tb, n, r.askAnswer)
		return
	}
	for i := range n {
		require.NoError(tb, r.askAnswer(i))
	}
}

// size reports the file's size, bbolt's high-water mark and the answered
// questions it holds.
func (r *retentionRounds) size(tb testing.TB) roundSize {
	tb.Helper()
	var s roundSize
	st, err := os.Stat(r.db.Path())
	require.NoError(tb, err)
	s.file = st.Size()
	require.NoError(tb, r.db.bolt.View(func(tx *bolt.Tx) error {
		s.used = tx.Size()
		return nil
	}))
	s.live, err = r.db.CountQuestions(context.Background(), hitl.StatusAnswered)
	require.NoError(tb, err)
	return s
}

func (r *retentionRounds) askAnswer(i int) error {
	q, _, err := r.svc.Questions.Create(as("api:agent"), fmt.Sprintf("run-%d", i%50), benchQuestion)
	if err != nil {
		return err
	}
	_, err = r.svc.Questions.Answer(as("slack:U024BE7LH"), q.ID, hitl.Response{Value: "deploy"})
	return err
}

// BenchmarkRetentionFileSize runs 10 rounds of 1,000 ask+answer with
// retention on and reports the file size after the 10th round ÷ after the
// 1st (the aim is ≤ 1.3), and the same for bbolt's high-water mark,
// which is not rounded up to the file's growth steps.
func BenchmarkRetentionFileSize(b *testing.B) {
	const rounds, perRound = 10, 1000
	var first, last roundSize
	for b.Loop() {
		b.StopTimer()
		r := newRetentionRounds(b)
		b.StartTimer()
		for i := range rounds {
			s := r.round(b, perRound)
			if i == 0 {
				first = s
			}
			last = s
		}
		b.StopTimer()
		require.NoError(b, r.db.Check())
		require.NoError(b, r.db.Close())
		b.StartTimer()
	}
	b.ReportMetric(float64(last.file)/float64(first.file), "file-ratio")
	b.ReportMetric(float64(last.used)/float64(first.used), "used-ratio")
	b.ReportMetric(float64(first.file)/(1<<20), "MiB-after-1")
	b.ReportMetric(float64(last.file)/(1<<20), "MiB-after-10")
	b.ReportMetric(float64(first.used)/(1<<20), "MiB-used-after-1")
	b.ReportMetric(float64(last.used)/(1<<20), "MiB-used-after-10")
	b.ReportMetric(float64(rounds*perRound*b.N)/b.Elapsed().Seconds(), "ask+answer/s")
}

// TestRetentionKeepsFileFlat is the benchmark at a size the suite can run:
// 10 rounds of 100 ask+answer. Past the first round, pages freed by the
// previous round's pruning are reused, so the file does not grow.
func TestRetentionKeepsFileFlat(t *testing.T) {
	const rounds, perRound = 10, 100
	r := newRetentionRounds(t)
	r.serial = true // the same pages every run, however loaded the machine
	closeAndCheckOnCleanup(t, r.db)
	var sizes []roundSize
	for range rounds {
		sizes = append(sizes, r.round(t, perRound))
	}
	first, last := sizes[0], sizes[rounds-1]
	t.Logf("sizes after each round: %+v", sizes)
	assert.Zero(t, last.live, "every round's questions were pruned")
	assert.LessOrEqual(t, float64(last.used)/float64(first.used), 1.3, "high-water mark after %d rounds ÷ after 1: %+v", rounds, sizes)
	// The file moves in bbolt's growth steps (doubling, at this size): it
	// may be one step above the first round's when the first round ended
	// just under a step, never more than 1.3× the pages need.
	assert.LessOrEqual(t, last.file, boltFileFor(first.used*13/10), "file size after %d rounds: %+v", rounds, sizes)
}

// boltFileFor is the size bbolt grows its file to when it holds used
// bytes of pages: the mmap size, which doubles from 32 KiB up to 1 GiB;
// past 16 MiB (its allocation step) the file is the pages plus 16 MiB.
func boltFileFor(used int64) int64 {
	const allocStep = 16 << 20
	size := int64(32 << 10)
	for size < used {
		size *= 2
	}
	if size > allocStep {
		return used + allocStep
	}
	return size
}

// BenchmarkCompact measures hitl compact (Compact) on a file that served
// 10,000 ask+answer: once with every question kept (retention 0), once
// after retention pruned them all. It reports the sizes before and after.
func BenchmarkCompact(b *testing.B) {
	const n = 10_000
	r := newRetentionRounds(b)
	r.load(b, n)
	require.NoError(b, r.db.Close())
	kept := r.db.Path()
	pruned := filepath.Join(b.TempDir(), "pruned.db")
	data, err := os.ReadFile(kept)
	require.NoError(b, err)
	require.NoError(b, os.WriteFile(pruned, data, 0o600))
	db, err := Open(pruned)
	require.NoError(b, err)
	r.clock.Add(retentionPeriod + time.Minute)
	_, err = newService(db, r.clock).Questions.Prune(context.Background(), retentionPeriod)
	require.NoError(b, err)
	require.NoError(b, db.Close())

	for _, c := range []struct{ name, path string }{{"kept=10000", kept}, {"pruned=10000", pruned}} {
		b.Run(c.name, func(b *testing.B) {
			data, err := os.ReadFile(c.path)
			require.NoError(b, err)
			var res CompactResult
			for b.Loop() {
				b.StopTimer()
				path := filepath.Join(b.TempDir(), "hitl.db")
				require.NoError(b, os.WriteFile(path, data, 0o600))
				b.StartTimer()
				res, err = Compact(path)
				require.NoError(b, err)
			}
			b.ReportMetric(float64(res.Before)/(1<<20), "MiB-before")
			b.ReportMetric(float64(res.After)/(1<<20), "MiB-after")
		})
	}
}
