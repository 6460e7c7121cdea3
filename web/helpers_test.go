package web_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/api"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/shell"
	"github.com/hitlbot/hitl/web"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)

// The people and agents of the tests, by token.
var (
	agentP = auth.TokenPrincipal("ci", []auth.Scope{auth.ScopeAsk}, "")
	aliceP = auth.TokenPrincipal("alice", []auth.Scope{auth.ScopeAnswer}, "U0ALICE")
	opsP   = auth.TokenPrincipal("ops", []auth.Scope{auth.ScopeControl}, "")
	rootP  = auth.TokenPrincipal("root", []auth.Scope{auth.ScopeAdmin}, "")
)

var tokens = map[string]auth.Principal{
	"agent-token-0123456789": agentP,
	"alice-token-0123456789": aliceP,
	"ops-token-0123456789ab": opsP,
	"root-token-0123456789a": rootP,
}

type env struct {
	t       *testing.T
	store   *memstore.Store
	svc     *service.Service
	clock   *clocktest.Clock
	srv     *httptest.Server
	handler *web.Handler
	removed map[string]bool // token ids taken out of config
}

type envOpt func(*web.Config)

// newEnv serves the web inbox over a fresh service: with the test tokens,
// or tokenless.
func newEnv(t *testing.T, tokenless bool, opts ...envOpt) *env {
	t.Helper()
	clock := clocktest.New(t0)
	st := memstore.New()
	svc := service.NewService(st, service.ServiceConfig{Notifier: notify.New(), Clock: clock, ParseCommand: shell.Parse})
	e := &env{t: t, store: st, svc: svc, clock: clock, removed: map[string]bool{}}
	cfg := web.Config{Services: servicesOf(svc), Tokenless: tokenless, LoopbackHost: api.LoopbackHost, Clock: clock, SignInTTL: time.Hour,
		TokenPrincipal: func(tok string) (auth.Principal, bool) { p, ok := tokens[tok]; return p, ok },
		TokenByID: func(id string) (auth.Principal, bool) {
			for _, p := range tokens {
				if p.ID == id && !e.removed[id] {
					return p, true
				}
			}
			return auth.Principal{}, false
		}}
	for _, o := range opts {
		o(&cfg)
	}
	e.handler = web.New(cfg)
	e.srv = httptest.NewServer(e.handler)
	t.Cleanup(e.srv.Close)
	return e
}

func as(p auth.Principal) context.Context { return auth.WithPrincipal(context.Background(), p) }

// ask has p (default: the agent) ask n in run.
func (e *env) ask(run string, n hitl.NewQuestion) *hitl.Question {
	e.t.Helper()
	q, _, err := e.svc.Questions.Create(as(agentP), run, n)
	require.NoError(e.t, err)
	return q
}

func (e *env) question(id string) *hitl.Question {
	e.t.Helper()
	q, err := e.svc.Questions.Question(as(rootP), id)
	require.NoError(e.t, err)
	return q
}

// browser is a person's browser: a cookie jar, no redirects followed.
type browser struct {
	t    *testing.T
	e    *env
	c    *http.Client
	csrf string
}

func (e *env) browser(t *testing.T) *browser {
	t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &browser{t: t, e: e, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

type resp struct {
	status int
	header http.Header
	body   string
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func (b *browser) do(req *http.Request) resp {
	b.t.Helper()
	res, err := b.c.Do(req)
	require.NoError(b.t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(b.t, err)
	if m := csrfField.FindStringSubmatch(string(body)); m != nil {
		b.csrf = m[1]
	}
	return resp{status: res.StatusCode, header: res.Header, body: string(body)}
}

func (b *browser) get(path string) resp {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodGet, b.e.srv.URL+path, nil)
	require.NoError(b.t, err)
	return b.do(req)
}

// post sends a form as the page would (its CSRF token added unless the
// form sets one), with extra headers.
func (b *browser) post(path string, form url.Values, headers ...string) resp {
	b.t.Helper()
	if _, ok := form["csrf"]; !ok {
		form.Set("csrf", b.csrf)
	}
	req, err := http.NewRequest(http.MethodPost, b.e.srv.URL+path, strings.NewReader(form.Encode()))
	require.NoError(b.t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return b.do(req)
}

// signIn signs in with token tok and fails the test unless it works.
func (b *browser) signIn(tok string) {
	b.t.Helper()
	b.get("/login")
	r := b.post("/login", url.Values{"token": {tok}})
	require.Equal(b.t, http.StatusSeeOther, r.status, r.body)
	b.get("/")
}

// servicesOf is the web's part of svc, as the wiring fills it
// (cmd/hitl/adapters.go).
func servicesOf(svc *service.Service) web.Services {
	return web.Services{Access: svc.Access(), Log: svc.Log, Questions: svc.Questions, Runs: svc.Runs,
		Policies: svc.Policies, SignIns: svc.SignIns, Guard: svc.Guard}
}

// apiServicesOf is the API's part of svc, as the wiring fills it
// (cmd/hitl/adapters.go): all of it.
func apiServicesOf(svc *service.Service) api.Services {
	return api.Services{Questions: svc.Questions, Log: svc.Log, Runs: svc.Runs, Policies: svc.Policies,
		Stats: svc.Observation, Webhooks: svc.Webhooks, Guard: svc.Guard, Scrape: svc.Guard, Holds: svc.Runs, Audit: svc.Audit}
}
