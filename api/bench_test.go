package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/store"
)

// askHook hands every created question's id to an answerer.
type askHook struct {
	hitl.QuestionService
	asked chan string
}

func (h *askHook) Create(ctx context.Context, runID string, n hitl.NewQuestion) (*hitl.Question, bool, error) {
	q, created, err := h.QuestionService.Create(ctx, runID, n)
	if err == nil && created {
		h.asked <- q.ID
	}
	return q, created, err
}

// answerAll answers every question asked through h, as human, until ctx
// ends; the channel reports the first failure.
func (h *askHook) answerAll(ctx context.Context, human *client.Client) <-chan error {
	failed := make(chan error, 1)
	go func() {
		for {
			select {
			case id := <-h.asked:
				if _, err := human.Answer(ctx, id, hitl.Response{Value: "Friday"}); err != nil && ctx.Err() == nil {
					failed <- err
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	return failed
}

// benchServer serves h on a fresh loopback port and returns its base URL.
func benchServer(b *testing.B, h http.Handler) string {
	b.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := hs.Serve(l); !errors.Is(err, http.ErrServerClosed) {
			b.Error(err)
		}
	}()
	b.Cleanup(func() { _ = hs.Close() })
	return "http://" + l.Addr().String()
}

var discard = slog.New(slog.NewTextHandler(io.Discard, nil))

// BenchmarkAskAnswerRoundTrip measures, on loopback, one agent's
// Ask from the ask until its waiter is woken by an answer that
// another client sends as soon as the question exists.
func BenchmarkAskAnswerRoundTrip(b *testing.B) {
	b.Run("store=bbolt", func(b *testing.B) {
		db, err := store.Open(filepath.Join(b.TempDir(), "hitl.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		benchRoundTrip(b, db)
	})
	b.Run("store=memstore", func(b *testing.B) { benchRoundTrip(b, memstore.New()) })
}

func benchRoundTrip(b *testing.B, st hitl.Store) {
	svc := service.NewService(st, service.ServiceConfig{Notifier: notify.New()})
	hook := &askHook{QuestionService: svc.Questions, asked: make(chan string, 1)}
	base := benchServer(b, NewServer(over(hook, svc), ServerConfig{Logger: discard}))
	agentC := client.NewClient(base, "", client.WithUser("agent"))
	human := client.NewClient(base, "", client.WithUser("human"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	answerErr := hook.answerAll(ctx, human)
	durs := make([]time.Duration, 0, b.N)
	i := 0
	for b.Loop() {
		i++
		start := time.Now()
		q, err := agentC.Ask(ctx, fmt.Sprintf("bench-%d", i), textQ)
		durs = append(durs, time.Since(start))
		if err != nil || q.Status != hitl.StatusAnswered {
			b.Fatalf("Ask: %v %+v", err, q)
		}
		select {
		case err := <-answerErr:
			b.Fatal(err)
		default:
		}
	}
	slices.Sort(durs)
	pct := func(p float64) float64 {
		return float64(durs[min(len(durs)-1, int(p*float64(len(durs))))].Nanoseconds()) / 1e3
	}
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.99), "p99-µs")
}
