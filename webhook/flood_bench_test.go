package webhook_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/store"
	"github.com/stretchr/testify/require"
)

// BenchmarkEndpointUnderCallbackFlood is issue 32's measure: a configured
// endpoint's question.answered, from the answer to the receiver, on a
// service idle (A) and on one where one ask token has flooded callbacks
// — 640 questions with callbackUrls to 20 loopback ports that never
// answer, created and cancelled — with every slot the flood may take
// held (B). Both on bbolt files (fsync'd), workers running as in `hitl
// serve` (woken by each commit), measured in turn in one run; it reports
// the medians and their ratio B/A.
//
//	go test -run xxx -bench EndpointUnderCallbackFlood -benchtime 200x -count 5 ./webhook/
func BenchmarkEndpointUnderCallbackFlood(b *testing.B) {
	open := func() *floodWorld {
		db, err := store.Open(filepath.Join(b.TempDir(), "hitl.db"))
		require.NoError(b, err)
		b.Cleanup(func() { _ = db.Close() })
		return newFloodWorldOn(b, db)
	}
	idle, flooded := open(), open()
	flooded.flood(b, 640, askersNamed(1), hangingPorts(b, 20))
	flooded.saturate(b)
	_, perAsker := flooded.worker.Share()
	if n, _ := flooded.worker.Callbacks(""); n != perAsker {
		b.Fatalf("%d callbacks in flight, want the token's cap %d", n, perAsker)
	}
	for _, w := range []*floodWorld{idle, flooded} {
		w.worker.Start() // closed on cleanup (newFloodWorldOn)
	}
	var a, f []time.Duration
	b.ResetTimer()
	for i := range b.N {
		a = append(a, idle.answerOps(b, fmt.Sprintf("deploy-%d", i)))
		f = append(f, flooded.answerOps(b, fmt.Sprintf("deploy-%d", i)))
	}
	b.StopTimer()
	ma, mf := median(a), median(f)
	b.ReportMetric(float64(ma.Microseconds())/1000, "idle-p50-ms")
	b.ReportMetric(float64(mf.Microseconds())/1000, "flood-p50-ms")
	b.ReportMetric(float64(mf)/float64(ma), "ratio")
}

// answerOps answers a deploy question and returns how long the running
// worker took to bring ops its question.answered.
func (f *floodWorld) answerOps(tb testing.TB, run string) time.Duration {
	tb.Helper()
	q, _, err := f.svc.Questions.Create(agent, run, hitl.NewQuestion{Question: "Deploy?"})
	require.NoError(tb, err)
	start := time.Now()
	_, err = f.svc.Questions.Answer(person, q.ID, hitl.Response{Value: "yes"})
	require.NoError(tb, err)
	select {
	case at := <-f.ops:
		return at.Sub(start)
	case <-time.After(30 * time.Second):
		tb.Fatalf("ops did not get %s's question.answered in 30 s", run)
		return 0
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
