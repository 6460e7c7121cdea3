package api

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/store"
	bolt "go.etcd.io/bbolt"
)

// BenchmarkAskAnswerWake measures, on loopback HTTP and bbolt, an agent
// that creates a question and long-polls it until it is woken by the
// answer a second client (another goroutine, in this process) sends as
// soon as the question exists: two durable commits and three HTTP round
// trips (create, answer, the long poll), the answer overlapping the poll.
//
// Interleaved with it, in the same loop, is the floor: two lone raw bbolt
// commits of a question-sized value and three sequential loopback round
// trips to a handler that does nothing. The ratio of the medians is the
// service's overhead over what its disk and network cost anyway.
func BenchmarkAskAnswerWake(b *testing.B) {
	dir := b.TempDir()
	db, err := store.Open(filepath.Join(dir, "hitl.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	svc := service.NewService(db, service.ServiceConfig{Notifier: notify.New()})
	hook := &askHook{QuestionService: svc.Questions, asked: make(chan string, 1)}
	base := benchServer(b, NewServer(over(hook, svc), ServerConfig{Logger: discard}))
	agentC := client.NewClient(base, "", client.WithUser("agent"))
	human := client.NewClient(base, "", client.WithUser("human"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	answerErr := hook.answerAll(ctx, human)
	floor := newFloor(b, filepath.Join(dir, "raw.db"))

	var trip, flo latencies
	i := 0
	for b.Loop() {
		i++
		start := time.Now()
		q, _, err := agentC.Create(ctx, fmt.Sprintf("bench-%d", i), textQ)
		if err == nil {
			q, err = agentC.Wait(ctx, q.ID)
		}
		trip = append(trip, time.Since(start))
		if err != nil || q.Status != hitl.StatusAnswered {
			b.Fatalf("ask and wait: %v %+v", err, q)
		}
		select {
		case err := <-answerErr:
			b.Fatal(err)
		default:
		}
		flo = append(flo, floor.run(b, uint64(i)))
	}
	b.ReportMetric(trip.p(0.5), "p50-µs")
	b.ReportMetric(trip.p(0.99), "p99-µs")
	b.ReportMetric(flo.p(0.5), "floor-p50-µs")
	b.ReportMetric(trip.p(0.5)/flo.p(0.5), "p50-x-floor")
}

// floor is what an ask, answer and wake cost at the least: two lone
// commits and three loopback round trips.
type floor struct {
	db    *bolt.DB
	value []byte
	hc    *http.Client
	url   string
}

func newFloor(b *testing.B, path string) *floor {
	q, err := textQ.Build("q_0123456789abcdef", "job-bench", "local:agent", time.Now().UTC(), hitl.DefaultTimeouts())
	if err != nil {
		b.Fatal(err)
	}
	value, err := json.Marshal(q)
	if err != nil {
		b.Fatal(err)
	}
	bdb, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = bdb.Close() })
	if err := bdb.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("raw")); return err }); err != nil {
		b.Fatal(err)
	}
	nothing := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true}`))
	})
	tr := http.DefaultTransport.(*http.Transport).Clone()
	return &floor{db: bdb, value: value, hc: &http.Client{Transport: tr}, url: benchServer(b, nothing) + "/"}
}

// run does the floor's work once and returns how long it took.
func (f *floor) run(b *testing.B, i uint64) time.Duration {
	start := time.Now()
	for k := range uint64(2) {
		key := binary.BigEndian.AppendUint64(nil, 2*i+k)
		if err := f.db.Update(func(tx *bolt.Tx) error { return tx.Bucket([]byte("raw")).Put(key, f.value) }); err != nil {
			b.Fatal(err)
		}
	}
	for range 3 {
		get(b, f.hc, f.url)
	}
	return time.Since(start)
}
