package api

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/service"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/shell"
	"github.com/stretchr/testify/require"
)

// testDeadline bounds every wait of a test on a channel.
const testDeadline = 10 * time.Second

// watched wraps a QuestionService and counts the Waits in flight, so tests
// and benchmarks can tell when waiters are parked without sleeping.
type watched struct {
	hitl.QuestionService
	mu      sync.Mutex
	inWait  int
	entered int
	left    int
	notify  chan struct{}
}

var _ hitl.QuestionService = (*watched)(nil)

func newWatched(svc hitl.QuestionService) *watched {
	return &watched{QuestionService: svc, notify: make(chan struct{})}
}

func (w *watched) Wait(ctx context.Context, id string) (*hitl.Question, error) {
	w.change(func() { w.inWait++; w.entered++ })
	defer w.change(func() { w.inWait--; w.left++ })
	return w.QuestionService.Wait(ctx, id)
}

func (w *watched) change(fn func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	fn()
	close(w.notify)
	w.notify = make(chan struct{})
}

// until blocks until cond holds for (in Wait now, entered Wait, left Wait).
func (w *watched) until(tb testing.TB, what string, cond func(in, entered, left int) bool) {
	tb.Helper()
	w.untilWithin(tb, testDeadline, what, cond)
}

// untilWithin is until with its own deadline.
func (w *watched) untilWithin(tb testing.TB, limit time.Duration, what string, cond func(in, entered, left int) bool) {
	tb.Helper()
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		w.mu.Lock()
		ok, ch := cond(w.inWait, w.entered, w.left), w.notify
		in, entered, left := w.inWait, w.entered, w.left
		w.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			tb.Fatalf("timed out waiting until %s (in wait %d, entered %d, left %d)", what, in, entered, left)
		}
	}
}

// env is a server over an in-memory service, on 127.0.0.1.
type env struct {
	clock  *clocktest.Clock
	svc    *service.Service
	w      *watched
	server *Server
	http   *httptest.Server
	client *client.Client
}

func newEnv(t *testing.T, cfg ServerConfig) *env {
	t.Helper()
	return newEnvWith(t, cfg, func(*service.ServiceConfig) {})
}

// newEnvWith is newEnv with the service's config adjusted by svcCfg (its
// Clock is the env's).
func newEnvWith(t *testing.T, cfg ServerConfig, svcCfg func(*service.ServiceConfig)) *env {
	t.Helper()
	return newEnvOver(t, memstore.New(), cfg, svcCfg)
}

// newEnvOver is newEnvWith over store st.
func newEnvOver(t *testing.T, st hitl.Store, cfg ServerConfig, svcCfg func(*service.ServiceConfig)) *env {
	t.Helper()
	clock := clocktest.New(time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC))
	sc := service.ServiceConfig{Notifier: notify.New(), Clock: clock, ParseCommand: shell.Parse}
	svcCfg(&sc)
	svc := service.NewService(st, sc)
	e := &env{clock: clock, svc: svc, w: newWatched(svc.Questions)}
	if cfg.Clock == nil {
		cfg.Clock = clock
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(t.Output(), nil))
	}
	e.server = NewServer(over(e.w, svc), cfg)
	e.http = httptest.NewServer(e.server)
	t.Cleanup(e.http.Close)
	t.Cleanup(e.server.Close)
	token := ""
	if len(cfg.Tokens) > 0 {
		token = cfg.Tokens[0].Secret
	}
	e.client = client.NewClient(e.http.URL, token, client.WithRetryBackoff(5*time.Millisecond, 50*time.Millisecond))
	return e
}

// ask creates a question directly in the service, as agent "api:test"
// (an admin token, so that it may ask in runs the HTTP calls started).
func (e *env) ask(t *testing.T, runID string, n hitl.NewQuestion) *hitl.Question {
	t.Helper()
	q, _, err := e.svc.Questions.Create(principaltest.As(context.Background(), "admin:test"), runID, n)
	require.NoError(t, err)
	return q
}

// answer answers directly in the service, as a Slack user.
func (e *env) answer(t *testing.T, id string, r hitl.Response) *hitl.Question {
	t.Helper()
	q, err := e.svc.Questions.Answer(principaltest.As(context.Background(), "slack:U024BE7LH"), id, r)
	require.NoError(t, err)
	return q
}

// reply is a decoded HTTP response.
type reply struct {
	status int
	header http.Header
	body   map[string]any
	raw    string
}

// call sends a raw request to the test server.
func (e *env) call(t *testing.T, method, path, body string, headers ...string) reply {
	t.Helper()
	return callURL(t, method, e.http.URL+path, body, headers...)
}

func callURL(t *testing.T, method, url, body string, headers ...string) reply {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	require.NoError(t, err)
	if body != "" || method != http.MethodGet {
		req.Header.Set("Content-Type", "application/json") // as the Go client sends
	}
	setHeaders(req, headers...)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	out := reply{status: resp.StatusCode, header: resp.Header, raw: string(b)}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		require.NoError(t, json.Unmarshal(b, &out.body), string(b))
	}
	return out
}

// setHeaders sets name, value pairs on req; an empty value removes the
// header ("Host" sets req.Host).
func setHeaders(req *http.Request, headers ...string) {
	for i := 0; i+1 < len(headers); i += 2 {
		switch name, v := headers[i], headers[i+1]; {
		case http.CanonicalHeaderKey(name) == "Host":
			req.Host = v
		case v == "":
			req.Header.Del(name)
		default:
			req.Header.Set(name, v)
		}
	}
}

// requireError checks an error reply's status and code.
func requireError(t *testing.T, r reply, status int, code string) {
	t.Helper()
	require.Equal(t, status, r.status, r.raw)
	require.Equal(t, code, r.body["code"], r.raw)
	require.NotEmpty(t, r.body["message"], r.raw)
}

// sub returns the object at key of a decoded body.
func sub(t *testing.T, m map[string]any, key string) map[string]any {
	t.Helper()
	v, ok := m[key].(map[string]any)
	require.True(t, ok, "%s is not an object in %v", key, m)
	return v
}

// sse is one Server-Sent Event as a client sees it.
type sse struct {
	id, event string
	data      map[string]any
	comment   string
}

// openEvents opens the SSE stream and returns its events on a channel.
func (e *env) openEvents(t *testing.T, query string, headers ...string) <-chan sse {
	t.Helper()
	return e.openEventsCtx(t, context.Background(), query, headers...)
}

// openEventsCtx is openEvents until ctx ends.
func (e *env) openEventsCtx(t *testing.T, ctx context.Context, query string, headers ...string) <-chan sse {
	t.Helper()
	return e.openSSE(t, ctx, "/api/events"+query, headers...)
}

// openSSE opens the event stream at path (with its query) until ctx ends.
func (e *env) openSSE(t *testing.T, ctx context.Context, path string, headers ...string) <-chan sse {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.http.URL+path, nil)
	require.NoError(t, err)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	ch := make(chan sse, 64)
	go func() {
		defer resp.Body.Close()
		defer close(ch)
		sc := bufio.NewScanner(resp.Body)
		var cur sse
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if cur.event != "" || cur.comment != "" {
					ch <- cur
				}
				cur = sse{}
			case strings.HasPrefix(line, ":"):
				cur.comment = strings.TrimSpace(line[1:])
			case strings.HasPrefix(line, "id: "):
				cur.id = line[4:]
			case strings.HasPrefix(line, "event: "):
				cur.event = line[7:]
			case strings.HasPrefix(line, "data: "):
				_ = json.Unmarshal([]byte(line[6:]), &cur.data)
			}
		}
	}()
	return ch
}

// next returns the next event that is not a comment.
func next(t *testing.T, ch <-chan sse) sse {
	t.Helper()
	deadline := time.NewTimer(testDeadline)
	defer deadline.Stop()
	for {
		select {
		case ev, ok := <-ch:
			require.True(t, ok, "the event stream ended")
			if ev.event != "" {
				return ev
			}
		case <-deadline.C:
			t.Fatal("timed out waiting for an event")
		}
	}
}

// recv waits for a value on ch.
func recv[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(testDeadline):
		t.Fatal("timed out waiting on a channel")
	}
	var zero T
	return zero
}

var (
	blockingQ = hitl.NewQuestion{Question: "Which database?", Type: hitl.Blocking, ResponseType: hitl.ChoiceResponse,
		Options: []hitl.Option{{Label: "Production", Value: "prod"}, {Label: "Staging", Value: "staging"}}}
	textQ = hitl.NewQuestion{Question: "What's the deadline?"}
)

// tokens returns bearer tokens from secret, name pairs; each may ask and
// answer.
func tokens(pairs ...string) []Token {
	var out []Token
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, Token{Secret: pairs[i], Principal: auth.TokenPrincipal(pairs[i+1], []auth.Scope{auth.ScopeAsk, auth.ScopeAnswer}, "")})
	}
	return out
}

// over is svc's parts with q serving the questions (a wrapper that
// watches or breaks them).
func over(q hitl.QuestionService, svc *service.Service) Services {
	s := servicesOf(svc)
	s.Questions = q
	return s
}

// servicesOf is the API's part of svc, as the wiring fills it
// (cmd/hitl/adapters.go): all of it.
func servicesOf(svc *service.Service) Services {
	return Services{Questions: svc.Questions, Log: svc.Log, Runs: svc.Runs, Policies: svc.Policies,
		Stats: svc.Observation, Webhooks: svc.Webhooks, Guard: svc.Guard, Scrape: svc.Guard, Holds: svc.Runs, Audit: svc.Audit}
}
