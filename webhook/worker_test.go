package webhook_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/webhook"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

const testSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// receiver records what it gets and answers with answer(n) (n: 1 for
// the first request).
type receiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	got    []http.Header
	bodies []string
	n      atomic.Int64
	// arrived is signalled (buffered, 1) once a request is counted,
	// before it is answered.
	arrived chan struct{}
}

func newReceiver(t *testing.T, answer func(n int64, r *http.Request) int) *receiver {
	t.Helper()
	rc := &receiver{arrived: make(chan struct{}, 1)}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got, rc.bodies = append(rc.got, r.Header.Clone()), append(rc.bodies, string(b))
		rc.mu.Unlock()
		n := rc.n.Add(1)
		select {
		case rc.arrived <- struct{}{}:
		default:
		}
		w.WriteHeader(answer(n, r))
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) headers() []http.Header {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]http.Header(nil), rc.got...)
}

type world struct {
	clock  *clocktest.Clock
	store  *memstore.Store
	svc    *service.Service
	worker *webhook.Worker
	failed atomic.Int64
}

func newWorld(t *testing.T, eps []webhook.Endpoint, policy webhook.CallbackPolicy) *world {
	t.Helper()
	secrets, err := webhook.ParseSecrets(testSecret)
	require.NoError(t, err)
	w := &world{clock: clocktest.New(t0), store: memstore.New()}
	var routes []hitl.WebhookRoute
	for i := range eps {
		eps[i].Secrets = secrets
		routes = append(routes, hitl.WebhookRoute{Name: eps[i].Name, URL: eps[i].URL, Events: hitl.WebhookEvents})
	}
	w.svc = service.NewService(w.store, service.ServiceConfig{Notifier: notify.New(), Clock: w.clock,
		Webhooks: &hitl.WebhookRoutes{Endpoints: routes}, Callbacks: policy})
	w.worker = webhook.New(webhook.Config{Endpoints: eps, CallbackSecrets: secrets, Callbacks: policy, Clock: w.clock,
		Jitter: func() float64 { return 0.5 }, Failed: func(hitl.WebhookDelivery) { w.failed.Add(1) }}, w.store)
	return w
}

var (
	agent  = auth.WithPrincipal(context.Background(), auth.TokenPrincipal("agent", nil, ""))
	person = auth.WithPrincipal(context.Background(), auth.TokenPrincipal("person", []auth.Scope{auth.ScopeAdmin}, ""))
)

func (w *world) answered(t *testing.T, run string, n hitl.NewQuestion) *hitl.Question {
	t.Helper()
	if n.Question == "" {
		n.Question = "Deploy?"
	}
	q, _, err := w.svc.Questions.Create(agent, run, n)
	require.NoError(t, err)
	_, err = w.svc.Questions.Answer(person, q.ID, hitl.Response{Value: "yes"})
	require.NoError(t, err)
	return q
}

// step runs one claim and waits for the attempts it started.
func (w *world) step(t *testing.T) int {
	t.Helper()
	n, err := w.worker.Step(context.Background())
	require.NoError(t, err)
	w.worker.Wait()
	return n
}

func (w *world) deliveries(t *testing.T, st hitl.WebhookStatus) []hitl.WebhookDelivery {
	t.Helper()
	ds, err := w.store.WebhookDeliveries(context.Background(), hitl.WebhookFilter{Status: st})
	require.NoError(t, err)
	return ds
}

// TestRetriesRepeatTheID: a receiver that answers 500 twice then 200
// gets the same webhook-id three times, then nothing more.
func TestRetriesRepeatTheID(t *testing.T) {
	rc := newReceiver(t, func(n int64, _ *http.Request) int {
		if n <= 2 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	w := newWorld(t, []webhook.Endpoint{{Name: "ci", URL: rc.srv.URL}}, webhook.CallbackPolicy{})
	w.answered(t, "run-1", hitl.NewQuestion{})
	require.Equal(t, 1, w.step(t))
	require.Equal(t, 0, w.step(t), "the retry waits 5 s")
	w.clock.Add(4 * time.Second)
	require.Equal(t, 0, w.step(t))
	w.clock.Add(time.Second)
	require.Equal(t, 1, w.step(t), "second attempt after 5 s")
	w.clock.Add(4 * time.Minute)
	require.Equal(t, 0, w.step(t), "the next waits 5 min")
	w.clock.Add(time.Minute)
	require.Equal(t, 1, w.step(t), "third attempt after 5 min")
	w.clock.Add(48 * time.Hour)
	require.Equal(t, 0, w.step(t), "then nothing more")
	got := rc.headers()
	require.Len(t, got, 3)
	for _, h := range got {
		assert.Equal(t, got[0].Get(webhook.HeaderID), h.Get(webhook.HeaderID))
	}
	secrets, _ := webhook.ParseSecrets(testSecret)
	for i, h := range got {
		ts, err := strconv.ParseInt(h.Get(webhook.HeaderTimestamp), 10, 64)
		require.NoError(t, err)
		assert.NoError(t, webhook.Verify(secrets[0], h, []byte(rc.bodies[i]), time.Unix(ts, 0)), "attempt %d", i+1)
	}
	assert.NotEqual(t, got[0].Get(webhook.HeaderTimestamp), got[2].Get(webhook.HeaderTimestamp), "each attempt signed when it is sent")
	delivered := w.deliveries(t, hitl.WebhookDelivered)
	require.Len(t, delivered, 1)
	assert.Equal(t, 3, delivered[0].Attempts)
	assert.Equal(t, 200, delivered[0].LastCode)
	assert.Zero(t, w.failed.Load())
}

// TestFailsAfterTheWindow: a receiver that never answers 2xx is marked
// failed after the eighth attempt, at the end of the schedule, and the
// failure is counted once.
func TestFailsAfterTheWindow(t *testing.T) {
	rc := newReceiver(t, func(int64, *http.Request) int { return http.StatusServiceUnavailable })
	w := newWorld(t, []webhook.Endpoint{{Name: "ci", URL: rc.srv.URL}}, webhook.CallbackPolicy{})
	w.answered(t, "run-1", hitl.NewQuestion{})
	require.Equal(t, 1, w.step(t))
	for i, wait := range webhook.Schedule {
		w.clock.Add(wait - time.Second)
		require.Equal(t, 0, w.step(t), "retry %d not before its time", i+1)
		require.Empty(t, w.deliveries(t, hitl.WebhookFailed))
		w.clock.Add(time.Second)
		require.Equal(t, 1, w.step(t), "retry %d", i+1)
	}
	assert.Equal(t, int64(8), rc.n.Load())
	failed := w.deliveries(t, hitl.WebhookFailed)
	require.Len(t, failed, 1)
	assert.Equal(t, 8, failed[0].Attempts)
	assert.Equal(t, 503, failed[0].LastCode)
	assert.Contains(t, failed[0].LastError, "503")
	assert.Equal(t, t0.Add(27*time.Hour+35*time.Minute+5*time.Second), failed[0].SettledAt.UTC())
	assert.Equal(t, int64(1), w.failed.Load())
	w.clock.Add(100 * time.Hour)
	require.Equal(t, 0, w.step(t))
	assert.Equal(t, int64(8), rc.n.Load())
}

// TestSlowEndpointDelaysNoOther: a receiver that holds every request
// holds its share of the senders only: another endpoint gets all its
// deliveries meanwhile, those of one run in order.
func TestSlowEndpointDelaysNoOther(t *testing.T) {
	release := make(chan struct{})
	slow := newReceiver(t, func(int64, *http.Request) int { <-release; return 200 })
	fast := newReceiver(t, func(int64, *http.Request) int { return 200 })
	w := newWorld(t, []webhook.Endpoint{{Name: "slow", URL: slow.srv.URL}, {Name: "fast", URL: fast.srv.URL}}, webhook.CallbackPolicy{})
	t.Cleanup(w.worker.Wait)
	defer close(release)
	w.worker.SetPerTarget(2)
	var first, second string
	for i, run := range []string{"run-1", "run-2", "run-1", "run-3", "run-4"} {
		q := w.answered(t, run, hitl.NewQuestion{})
		switch i {
		case 0:
			first = q.ID
		case 2:
			second = q.ID
		}
	}
	// The slow receiver's two requests and the fast one's five may arrive
	// in any order; wait for all seven, then claim again: nothing more
	// reaches the slow receiver while its two senders are held.
	w.stepUntil(t, func() bool { return fast.n.Load() == 5 && slow.n.Load() == 2 }, fast, slow)
	for range 3 {
		w.step0(t)
	}
	assert.Equal(t, int64(2), slow.n.Load(), "the slow receiver holds its share only")
	// Attempts start synchronously in Step: a share that did not hold
	// would show here at once, whenever its requests arrive.
	held := w.worker.InFlight("slow")
	assert.Equal(t, 2, held, "two attempts in flight to the slow receiver, no more")
	fast.mu.Lock()
	bodies := append([]string(nil), fast.bodies...)
	fast.mu.Unlock()
	var order []string
	for _, b := range bodies {
		for _, id := range []string{first, second} {
			if strings.Contains(b, id) {
				order = append(order, id)
			}
		}
	}
	assert.Equal(t, []string{first, second}, order, "one run's deliveries in order")
}

// step0 claims once without waiting for the attempts.
func (w *world) step0(t *testing.T) {
	t.Helper()
	_, err := w.worker.Step(context.Background())
	require.NoError(t, err)
}

// stepUntil claims, then claims again each time an attempt ends (a
// delivery settled: the next of its run may be due) or a receiver gets a
// request, until cond holds; 10 s without it fail the test. A wake-up
// always follows the change it reports, so none is lost to the checks.
func (w *world) stepUntil(t *testing.T, cond func() bool, a, b *receiver) {
	t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for w.step0(t); !cond(); w.step0(t) {
		select {
		case <-w.worker.Freed():
		case <-a.arrived:
		case <-b.arrived:
		case <-deadline.C:
			t.Fatal("condition not met in 10 s")
		}
	}
}

// TestCallbackChecksTheAddressDialed: a callbackUrl's name that resolves
// to a private address when the delivery is made (DNS rebinding) is
// refused then; one to the loopback host it names is delivered.
func TestCallbackChecksTheAddressDialed(t *testing.T) {
	rc := newReceiver(t, func(int64, *http.Request) int { return 200 })
	u, _ := url.Parse(rc.srv.URL)
	policy := webhook.CallbackPolicy{AllowedHosts: []string{"127.0.0.1", "rebind.example"}, AllowHTTP: true}
	w := newWorld(t, nil, policy)
	w.worker.Redial(func(addr string) string { return u.Host }) // every name "resolves" to the receiver
	w.answered(t, "run-1", hitl.NewQuestion{CallbackURL: rc.srv.URL + "/resume"})
	w.answered(t, "run-2", hitl.NewQuestion{CallbackURL: "http://rebind.example:" + u.Port() + "/resume"})
	require.Equal(t, 2, w.step(t))
	assert.Equal(t, int64(1), rc.n.Load(), "only the loopback URL reached the receiver")
	ds := w.deliveries(t, "")
	require.Len(t, ds, 2)
	by := map[string]hitl.WebhookDelivery{}
	for _, d := range ds {
		by[d.RunID] = d
	}
	assert.Equal(t, hitl.WebhookDelivered, by["run-1"].Status)
	assert.Equal(t, hitl.WebhookPending, by["run-2"].Status)
	assert.Contains(t, by["run-2"].LastError, "private address")
	body := rc.bodies[0]
	assert.Contains(t, body, `"type":"question.answered"`)
}

// TestPing: a test delivery is signed and sent at once, outside the
// outbox; a receiver that does not answer 2xx is an error with its status.
func TestPing(t *testing.T) {
	ok := newReceiver(t, func(int64, *http.Request) int { return 204 })
	down := newReceiver(t, func(int64, *http.Request) int { return 500 })
	w := newWorld(t, []webhook.Endpoint{{Name: "ok", URL: ok.srv.URL}, {Name: "down", URL: down.srv.URL}}, webhook.CallbackPolicy{})
	code, err := w.worker.Ping(context.Background(), "ok")
	require.NoError(t, err)
	assert.Equal(t, 204, code)
	h := ok.headers()[0]
	ts, _ := strconv.ParseInt(h.Get(webhook.HeaderTimestamp), 10, 64)
	secrets, _ := webhook.ParseSecrets(testSecret)
	require.NoError(t, webhook.Verify(secrets[0], h, []byte(ok.bodies[0]), time.Unix(ts, 0)))
	assert.Contains(t, ok.bodies[0], `"type":"webhook.ping"`)
	code, err = w.worker.Ping(context.Background(), "down")
	assert.Equal(t, 500, code)
	assert.Equal(t, fault.EUNAVAILABLE, fault.Code(err))
	_, err = w.worker.Ping(context.Background(), "nope")
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err))
	assert.Empty(t, w.deliveries(t, ""), "pings are not queued")
}
