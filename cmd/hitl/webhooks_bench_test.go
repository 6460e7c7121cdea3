package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/principaltest"
)

// BenchmarkCreateWithWebhookBacklog measures POST
// /api/jobs/{id}/questions (real HTTP on loopback, bbolt, fsync'd) on two
// services configured alike, one of which holds 1,000 webhook deliveries
// queued to a receiver that never answers (each request blocks until the
// worker's 10 s timeout: a receiver slower than any real one), and
// alternates them in one loop: the ratio of the medians is the figure.
func BenchmarkCreateWithWebhookBacklog(b *testing.B) {
	release := make(chan struct{})
	var inFlight atomic.Int64
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inFlight.Add(1)
		defer inFlight.Add(-1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer recv.Close()
	defer close(release)
	secretFile := filepath.Join(b.TempDir(), "secret")
	if err := os.WriteFile(secretFile, []byte(newSecret), 0o600); err != nil {
		b.Fatal(err)
	}
	hooks := func(c *config.Config, _ *Main) {
		c.RateLimits.TokenPerMinute, c.RateLimits.RunPerMinute, c.RateLimits.RunsPerMinute = 0, 0, 0
		c.Webhooks.Endpoints = []config.Webhook{{Name: "slow", URL: recv.URL, SecretFile: secretFile, Events: []string{"question.answered"}}}
	}
	quiet, busy := startMain(b, hooks), startMain(b, hooks)

	// The backlog: 1,000 answers, each owing the slow receiver a delivery.
	const backlog, writers = 1000, 16
	ctx := context.Background()
	asker, person := principaltest.As(ctx, "api:bench"), principaltest.As(ctx, "local")
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < backlog; i += writers {
				q, _, err := busy.Service.Questions.Create(asker, fmt.Sprintf("backlog-%d", i), hitl.NewQuestion{Question: "Deploy?"})
				if err == nil {
					_, err = busy.Service.Questions.Answer(person, q.ID, hitl.Response{Value: "yes"})
				}
				if err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	queued := func() int {
		ov, err := busy.DB.WebhookStats(ctx)
		if err != nil || len(ov) != 1 {
			b.Fatalf("webhook stats: %v %v", ov, err)
		}
		return ov[0].Pending
	}
	for deadline := time.Now().Add(30 * time.Second); inFlight.Load() < 4; {
		if time.Now().After(deadline) {
			b.Fatal("the worker did not reach the receiver")
		}
		<-time.After(time.Millisecond) // set-up only, not measured
	}

	hc := &http.Client{}
	n := 0
	create := func(m *Main) time.Duration {
		n++
		body := []byte(`{"question":"Ship it?","responseType":"boolean"}`)
		start := time.Now()
		resp, err := hc.Post(fmt.Sprintf("%s/api/jobs/bench-%d/questions", m.URL(), n), "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			b.Fatalf("create: %d", resp.StatusCode)
		}
		return time.Since(start)
	}
	b.Run("ratio", func(b *testing.B) {
		var lq, lb []time.Duration
		for b.Loop() {
			lq = append(lq, create(quiet))
			lb = append(lb, create(busy))
		}
		p50 := func(l []time.Duration) float64 {
			s := slices.Clone(l)
			slices.Sort(s)
			return float64(s[len(s)/2].Microseconds())
		}
		b.ReportMetric(p50(lq), "quiet-p50-µs")
		b.ReportMetric(p50(lb), "backlog-p50-µs")
		b.ReportMetric(p50(lb)/p50(lq), "p50-backlog÷quiet")
		b.ReportMetric(float64(queued()), "queued")
		b.ReportMetric(float64(inFlight.Load()), "in-flight")
	})
}
