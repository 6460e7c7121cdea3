package webhook_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/webhook"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hanging is a loopback receiver that accepts connections and never
// answers: what an agent's callbackUrl can hold a slot with.
type hanging struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

// newHanging listens on a loopback port until the test ends (then its
// connections close, so the attempts they hold end).
func newHanging(tb testing.TB) *hanging {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(tb, err)
	h := &hanging{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			h.mu.Lock()
			h.conns = append(h.conns, c)
			h.mu.Unlock()
		}
	}()
	tb.Cleanup(func() {
		_ = ln.Close()
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, c := range h.conns {
			_ = c.Close()
		}
	})
	return h
}

func (h *hanging) url() string { return "http://" + h.ln.Addr().String() }

// floodWorld is a service whose configured endpoint "ops" gets the
// question.answered of deploy-* runs, and whose callbackUrls may name
// loopback ports; the worker's attempts last an hour (a hanging receiver
// holds its slot for the whole test).
type floodWorld struct {
	svc    *service.Service
	worker *webhook.Worker
	ops    chan time.Time // when ops got a request
}

func newFloodWorld(tb testing.TB) *floodWorld {
	tb.Helper()
	return newFloodWorldOn(tb, memstore.New())
}

// newFloodWorldOn is a floodWorld over st; its worker is woken by the
// service's event log when started.
func newFloodWorldOn(tb testing.TB, st hitl.Store) *floodWorld {
	tb.Helper()
	secrets, err := webhook.ParseSecrets(testSecret)
	require.NoError(tb, err)
	f := &floodWorld{ops: make(chan time.Time, 16)}
	ops := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		f.ops <- time.Now()
		w.WriteHeader(http.StatusNoContent)
	}))
	tb.Cleanup(ops.Close)
	policy := webhook.CallbackPolicy{AllowedHosts: []string{"127.0.0.1"}, AllowHTTP: true}
	store, clock := st, clocktest.New(t0)
	f.svc = service.NewService(store, service.ServiceConfig{Notifier: notify.New(), Clock: clock, Callbacks: policy,
		Webhooks: &hitl.WebhookRoutes{Endpoints: []hitl.WebhookRoute{{Name: "ops", URL: ops.URL, Events: []hitl.WebhookEvent{hitl.WebhookQuestionAnswered}, Runs: "deploy-*"}}}})
	f.worker = webhook.New(webhook.Config{Endpoints: []webhook.Endpoint{{Name: "ops", URL: ops.URL, Secrets: secrets}},
		CallbackSecrets: secrets, Callbacks: policy, Clock: clock, Jitter: func() float64 { return 0.5 },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Changed: f.svc.Log.Changed}, store)
	f.worker.SetTimeout(time.Hour)
	tb.Cleanup(func() { // after the hanging receivers close (cleanups run last first)
		f.worker.Close()
		f.worker.Wait()
	})
	return f
}

// flood has askers ask n questions with callbackUrls spread over ports
// and cancels them: n question.cancelled callbacks, due at once, older
// than anything after.
func (f *floodWorld) flood(tb testing.TB, n int, askers []context.Context, ports []*hanging) {
	tb.Helper()
	for i := range n {
		q, _, err := f.svc.Questions.Create(askers[i%len(askers)], fmt.Sprintf("flood-%d", i),
			hitl.NewQuestion{Question: "Go?", CallbackURL: ports[i%len(ports)].url() + "/resume"})
		require.NoError(tb, err)
		_, err = f.svc.Questions.Cancel(person, q.ID, "flood")
		require.NoError(tb, err)
	}
}

// saturate claims until a claim starts nothing: every slot the flood may
// take is taken, and held (its receivers never answer).
func (f *floodWorld) saturate(tb testing.TB) {
	tb.Helper()
	for {
		n, err := f.worker.Step(context.Background())
		require.NoError(tb, err)
		if n == 0 {
			return
		}
	}
}

// deliverOps answers a deploy question and returns how long ops took to
// get its question.answered: the worker claims as it would when woken by
// the event, and again each time an attempt ends, for up to 10 s.
func (f *floodWorld) deliverOps(tb testing.TB, run string) time.Duration {
	tb.Helper()
	q, _, err := f.svc.Questions.Create(agent, run, hitl.NewQuestion{Question: "Deploy?"})
	require.NoError(tb, err)
	start := time.Now()
	_, err = f.svc.Questions.Answer(person, q.ID, hitl.Response{Value: "yes"})
	require.NoError(tb, err)
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		_, err := f.worker.Step(context.Background())
		require.NoError(tb, err)
		select {
		case at := <-f.ops:
			return at.Sub(start)
		case <-f.worker.Freed():
		case <-deadline.C:
			tb.Fatalf("ops did not get %s's question.answered in 10 s", run)
			return 0
		}
	}
}

// askersNamed are n ask tokens.
func askersNamed(n int) []context.Context {
	out := make([]context.Context, n)
	for i := range out {
		out[i] = auth.WithPrincipal(context.Background(), auth.TokenPrincipal(fmt.Sprintf("agent-%d", i), nil, ""))
	}
	return out
}

func hangingPorts(tb testing.TB, n int) []*hanging {
	tb.Helper()
	out := make([]*hanging, n)
	for i := range out {
		out[i] = newHanging(tb)
	}
	return out
}

// TestCallbackFloodLeavesEndpoints: callbackUrls that never answer —
// the 640 questions from one ask token to 20 hanging loopback
// ports, or the same from 20 tokens — leave a configured endpoint's
// question.answered as prompt as when idle: it is delivered while every
// slot the flood may take is held. Each row fails without its rule:
// the per-asker cap holds one token to its share, the endpoints' share
// holds many tokens to the callbacks' part.
func TestCallbackFloodLeavesEndpoints(t *testing.T) {
	rows := []struct {
		name   string
		askers int
		// inFlight is how many callbacks the flood holds, by the
		// callbacks' share and the per-asker cap.
		inFlight func(share, perAsker int) int
	}{
		{"one ask token (the per-asker cap)", 1, func(_, perAsker int) int { return perAsker }},
		{"twenty ask tokens (the endpoints' share)", 20, func(share, _ int) int { return share }},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			f := newFloodWorld(t)
			idle := f.deliverOps(t, "deploy-idle")
			askers := askersNamed(r.askers)
			f.flood(t, 640, askers, hangingPorts(t, 20))
			f.saturate(t)
			share, perAsker := f.worker.Share()
			total, _ := f.worker.Callbacks("")
			assert.Equal(t, r.inFlight(share, perAsker), total, "callbacks in flight, held by receivers that never answer")
			flooded := f.deliverOps(t, "deploy-flooded")
			t.Logf("ops's question.answered: idle %v, under the flood %v", idle, flooded)
			assert.Less(t, flooded, idle+5*time.Second, "within a bound of its idle latency")
		})
	}
}

// TestCallbackFloodLeavesOtherAskers: one token flooding callbacks holds
// its own share only: another token's callback is delivered meanwhile.
func TestCallbackFloodLeavesOtherAskers(t *testing.T) {
	f := newFloodWorld(t)
	f.flood(t, 640, askersNamed(1), hangingPorts(t, 20))
	f.saturate(t)
	arrived := make(chan struct{}, 1)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		arrived <- struct{}{}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(other.Close)
	q, _, err := f.svc.Questions.Create(agent, "other-1", hitl.NewQuestion{Question: "Go?", CallbackURL: other.URL + "/resume"})
	require.NoError(t, err)
	_, err = f.svc.Questions.Answer(person, q.ID, hitl.Response{Value: "yes"})
	require.NoError(t, err)
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		_, err := f.worker.Step(context.Background())
		require.NoError(t, err)
		select {
		case <-arrived:
			_, mine := f.worker.Callbacks("api:agent-0")
			_, perAsker := f.worker.Share()
			assert.Equal(t, perAsker, mine, "the flooding token holds its cap, no more")
			return
		case <-f.worker.Freed():
		case <-deadline.C:
			t.Fatal("another token's callback was not delivered in 10 s")
		}
	}
}

// TestCallbackTargetCapIsNormalised: callbackUrls spelling one receiver
// differently (scheme case, a port's leading zero) are one target: at
// most PerTarget (4) attempts in flight to it.
func TestCallbackTargetCapIsNormalised(t *testing.T) {
	f := newFloodWorld(t)
	h := newHanging(t)
	port := h.ln.Addr().(*net.TCPAddr).Port
	spellings := []string{
		fmt.Sprintf("http://127.0.0.1:%d/a", port),
		fmt.Sprintf("HTTP://127.0.0.1:%d/b", port),
		fmt.Sprintf("http://127.0.0.1:0%d/c", port),
	}
	for i := range 12 {
		q, _, err := f.svc.Questions.Create(agent, fmt.Sprintf("spelled-%d", i), hitl.NewQuestion{Question: "Go?", CallbackURL: spellings[i%3]})
		require.NoError(t, err)
		_, err = f.svc.Questions.Cancel(person, q.ID, "flood")
		require.NoError(t, err)
	}
	f.saturate(t)
	target := fmt.Sprintf("callback:http://127.0.0.1:%d", port)
	assert.Equal(t, 4, f.worker.InFlight(target), "one receiver, one cap")
	total, _ := f.worker.Callbacks("")
	assert.Equal(t, 4, total)
}
