package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/pgtest"
	"github.com/hitlbot/hitl/webhook"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// webhookChildEnv makes TestWebhookChild run `hitl serve` with a webhook
// endpoint; without it the child test skips.
const webhookChildEnv = "HITL_WEBHOOK_CHILD"

// The kill tests' webhook worker: attempts of at most webhookTimeout,
// claims of webhookLease (how long a dead process's deliveries wait for
// another to take them).
const (
	webhookTimeout = 3 * time.Second
	webhookLease   = 6 * time.Second
)

// webhookKillTuning is how the services of the kill tests run, in this
// process and in the child: an endpoint "sink" at sinkURL for every
// event, the short lease, and no question rate limits.
func webhookKillTuning(sinkURL, secretFile string) func(*config.Config, *Main) {
	return func(c *config.Config, m *Main) {
		c.RateLimits.TokenPerMinute, c.RateLimits.RunPerMinute = 0, 0
		c.Webhooks.Endpoints = []config.Webhook{{Name: "sink", URL: sinkURL, SecretFile: secretFile, Events: []string{"question.answered"}}}
		m.WebhookTuning = func(w *webhook.Config) {
			w.Timeout, w.Lease, w.Every = webhookTimeout, webhookLease, 100*time.Millisecond
		}
	}
}

// TestWebhookChild is the service the webhook kill tests kill: on HITL_DB
// (with HITL_SEAL_KEY_FILE for PostgreSQL), webhooks to HITL_SINK_URL.
func TestWebhookChild(t *testing.T) {
	if os.Getenv(webhookChildEnv) != "1" {
		t.Skip("run by the webhook kill tests")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := config.Default()
	cfg.Listen, cfg.DB, cfg.SealKeyFile = "127.0.0.1:0", os.Getenv("HITL_DB"), os.Getenv("HITL_SEAL_KEY_FILE")
	m := NewMain(cfg, slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	webhookKillTuning(os.Getenv("HITL_SINK_URL"), os.Getenv("HITL_SINK_SECRET_FILE"))(&m.Config, m)
	require.NoError(t, m.Config.Validate())
	require.NoError(t, m.Run(ctx))
	fmt.Fprintln(os.Stderr, listeningPrefix+m.URL())
	<-ctx.Done()
	t.Fatal("the webhook child was not killed within two minutes")
}

// startWebhookChild starts TestWebhookChild on db.
func startWebhookChild(t *testing.T, ctx context.Context, db, key, sinkURL, secretFile string) *childReplica {
	t.Helper()
	return startChild(t, ctx, "TestWebhookChild", "the webhook child", []string{webhookChildEnv + "=1", "HITL_DB=" + db,
		"HITL_SEAL_KEY_FILE=" + key, "HITL_SINK_URL=" + sinkURL, "HITL_SINK_SECRET_FILE=" + secretFile,
		"HITL_CONFIG=", "HITL_TOKENS=", "SLACK_APP_TOKEN=", "SLACK_BOT_TOKEN="})
}

// sink is a webhook receiver that verifies every delivery, counts the
// requests of each webhook-id, and, while held, keeps requests waiting
// (in flight) until released.
type sink struct {
	t       *testing.T
	srv     *httptest.Server
	secret  webhook.Secret
	mu      sync.Mutex
	held    bool
	release chan struct{}
	arrived chan string // every request's webhook-id, as it arrives
	got     map[string]int
	ok      map[string]bool // answered 2xx
}

func newSink(t *testing.T) *sink {
	t.Helper()
	secrets, err := webhook.ParseSecrets(newSecret)
	require.NoError(t, err)
	s := &sink{t: t, secret: secrets[0], release: make(chan struct{}), arrived: make(chan string, 4096), got: map[string]int{}, ok: map[string]bool{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	t.Cleanup(s.unhold)
	return s
}

func (s *sink) serve(w http.ResponseWriter, r *http.Request) {
	body := make([]byte, r.ContentLength)
	_, _ = r.Body.Read(body)
	id := r.Header.Get(webhook.HeaderID)
	if err := webhook.Verify(s.secret, r.Header, body, time.Now()); err != nil {
		s.t.Errorf("delivery %s does not verify: %v", id, err)
	}
	s.mu.Lock()
	s.got[id]++
	held, release := s.held, s.release
	s.mu.Unlock()
	s.arrived <- id
	if held {
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
	}
	s.mu.Lock()
	s.ok[id] = true
	s.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (s *sink) hold() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held, s.release = true, make(chan struct{})
}

func (s *sink) unhold() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held {
		s.held = false
		close(s.release)
	}
}

// waitArrived waits (with a deadline) for n more requests.
func (s *sink) waitArrived(t *testing.T, n int) {
	t.Helper()
	for range n {
		select {
		case <-s.arrived:
		case <-time.After(30 * time.Second): // a deadline, never a wait of its own
			t.Fatalf("no webhook request in 30 s")
		}
	}
}

// delivered waits until every delivery in db is delivered and the sink
// answered 2xx to each of their ids, and returns the deliveries.
func (s *sink) delivered(t *testing.T, db interface {
	WebhookDeliveries(context.Context, hitl.WebhookFilter) ([]hitl.WebhookDelivery, error)
}, n int) []hitl.WebhookDelivery {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ds, err := db.WebhookDeliveries(context.Background(), hitl.WebhookFilter{Limit: hitl.MaxPageSize})
		require.NoError(t, err)
		done := len(ds) == n
		for _, d := range ds {
			s.mu.Lock()
			ok := s.ok[d.ID]
			s.mu.Unlock()
			done = done && ok && d.Status == hitl.WebhookDelivered
		}
		if done {
			return ds
		}
		require.True(t, time.Now().Before(deadline), "deliveries not all delivered in 60 s: %d stored, want %d", len(ds), n)
		select {
		case <-s.arrived:
		case <-time.After(100 * time.Millisecond): // the worker's commit is not announced: look again
		}
	}
}

// answerMany asks and answers n questions through url, concurrently, and
// returns the ids of those whose answer the API acknowledged.
func answerMany(t *testing.T, url string, n int) []string {
	t.Helper()
	ctx := context.Background()
	c := client.NewClient(url, "", client.WithUser("webhook-test"))
	var mu sync.Mutex
	var acked []string
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q, _, err := c.Create(ctx, fmt.Sprintf("run-%d", i), hitl.NewQuestion{Question: "Go?"})
			if !assert.NoError(t, err) {
				return
			}
			if _, err := c.Answer(ctx, q.ID, hitl.Response{Value: "yes"}); assert.NoError(t, err) {
				mu.Lock()
				acked = append(acked, q.ID)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return acked
}

// offsetClock is the wall clock moved by d: a restarted service that
// sees the dead one's claims run out without waiting for them.
type offsetClock struct{ d time.Duration }

func (c offsetClock) Now() time.Time { return time.Now().UTC().Add(c.d) }

// TestWebhooksSurviveKill kills `hitl serve` (SIGKILL) while the
// receiver holds its webhook requests in flight, restarts the service on
// the file, and checks that the event of every acknowledged answer is
// delivered (at least once).
func TestWebhooksSurviveKill(t *testing.T) {
	if testing.Short() {
		t.Skip("runs hitl serve in a child process")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	s := newSink(t)
	secretFile := writeSecret(t, newSecret)
	db := t.TempDir() + "/hitl.db"
	s.hold()
	child := startWebhookChild(t, ctx, db, "", s.srv.URL, secretFile)
	const n = 40
	acked := answerMany(t, child.url, n)
	require.Len(t, acked, n)
	s.waitArrived(t, 4) // the worker's share of the sink: in flight, held
	child.kill(t)
	s.unhold()

	m := startMain(t, func(c *config.Config, _ *Main) { c.DB = db }, webhookKillTuning(s.srv.URL, secretFile),
		func(_ *config.Config, m *Main) {
			tune := m.WebhookTuning
			m.WebhookTuning = func(w *webhook.Config) { tune(w); w.Clock = offsetClock{webhookLease} }
		})
	ds := s.delivered(t, m.DB, n)
	var questions []string
	for _, d := range ds {
		questions = append(questions, d.QuestionID)
	}
	assert.ElementsMatch(t, acked, questions, "one delivery per acknowledged answer")
	s.mu.Lock()
	defer s.mu.Unlock()
	again := 0
	for _, d := range ds {
		if s.got[d.ID] > 1 {
			again++
		}
	}
	assert.Equal(t, 4, again, "the four in flight at the kill were sent again; the others once")
}

// TestWebhooksOnReplicas runs two replicas on one PostgreSQL database,
// one a child process. With both alive, every delivery is sent once: no
// two replicas send one delivery in the same attempt. Then the child is
// killed (SIGKILL) with its requests in flight: the other replica sends
// them once the child's claims run out, and every event is delivered.
func TestWebhooksOnReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a replica in a child process")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	url, key := pgtest.DB(t), keyFile(t)
	s := newSink(t)
	secretFile := writeSecret(t, newSecret)
	child := startWebhookChild(t, ctx, url, key, s.srv.URL, secretFile)
	r1 := startReplica(t, url, key, webhookKillTuning(s.srv.URL, secretFile))

	const n = 30
	acked := append(answerMany(t, child.url, n), answerMany(t, r1.URL(), n)...)
	ds := s.delivered(t, r1.DB, 2*n)
	s.mu.Lock()
	for _, d := range ds {
		assert.Equal(t, 1, s.got[d.ID], "delivery %d (%s) sent once", d.Seq, d.ID)
	}
	s.mu.Unlock()

	s.hold()
	acked = append(acked, answerMany(t, r1.URL(), n)...)
	s.waitArrived(t, 8) // each replica's share of the sink, in flight
	child.kill(t)
	s.unhold()
	ds = s.delivered(t, r1.DB, 3*n)
	var questions []string
	again := 0
	s.mu.Lock()
	for _, d := range ds {
		questions = append(questions, d.QuestionID)
		if s.got[d.ID] > 1 {
			again++
		}
	}
	s.mu.Unlock()
	assert.ElementsMatch(t, acked, questions, "one delivery per acknowledged answer")
	assert.LessOrEqual(t, again, 4, "only those the child had in flight were sent again")
}
