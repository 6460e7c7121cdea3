package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// cliOpts is the environment of one command beyond cli's defaults.
type cliOpts struct {
	url   string    // HITL_URL; default the Main's
	token string    // HITL_TOKEN
	stdin io.Reader // default empty
	tty   bool      // stdout is a terminal
	after func(time.Duration) <-chan time.Time
	home  string // HOME
}

// startCLIWith runs a command in the background with o's environment.
func startCLIWith(ctx context.Context, m *Main, o cliOpts, args ...string) <-chan cliResult {
	if o.url == "" {
		o.url = m.URL()
	}
	if o.stdin == nil {
		o.stdin = strings.NewReader("")
	}
	ch := make(chan cliResult, 1)
	go func() {
		var out, errb syncBuffer
		e := &env{stdin: o.stdin, stdout: &out, stderr: &errb, stdoutTTY: o.tty, after: o.after, getenv: func(k string) string {
			switch k {
			case "HITL_URL":
				return o.url
			case "HITL_TOKEN":
				return o.token
			case "USER":
				return "tester"
			case "HOME":
				return o.home
			}
			return ""
		}}
		code := run(ctx, args, e)
		ch <- cliResult{code, out.String(), errb.String()}
	}()
	return ch
}

// cliWith runs a command with o's environment and waits for it.
func cliWith(t *testing.T, ctx context.Context, m *Main, o cliOpts, args ...string) cliResult {
	t.Helper()
	return result(t, startCLIWith(ctx, m, o, args...))
}

// frontProxy is a loopback reverse proxy in front of the service: a test
// can step in before a request is forwarded (to refuse it, or to restart
// the service behind it).
type frontProxy struct {
	srv *httptest.Server

	mu      sync.Mutex
	backend *url.URL
	// before, when set, sees each request first; true means it answered.
	before func(w http.ResponseWriter, r *http.Request) bool
}

func newFrontProxy(t *testing.T, backend string) *frontProxy {
	t.Helper()
	p := &frontProxy{}
	p.setBackend(t, backend)
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		before := p.before
		p.mu.Unlock()
		if before != nil && before(w, r) {
			return
		}
		p.mu.Lock()
		target := p.backend
		p.mu.Unlock()
		rp := httputil.NewSingleHostReverseProxy(target)
		// No kept-alive connections: the service behind may restart.
		rp.Transport = &http.Transport{DisableKeepAlives: true}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *frontProxy) setBackend(t *testing.T, backend string) {
	u, err := url.Parse(backend)
	require.NoError(t, err)
	p.mu.Lock()
	p.backend = u
	p.mu.Unlock()
}

func (p *frontProxy) intercept(f func(w http.ResponseWriter, r *http.Request) bool) {
	p.mu.Lock()
	p.before = f
	p.mu.Unlock()
}

// manualTimer is an injected time.After: each wait is reported on asked
// and ends when the test sends on fire.
type manualTimer struct {
	asked chan time.Duration
	fire  chan time.Time
}

func newManualTimer() *manualTimer {
	return &manualTimer{asked: make(chan time.Duration, 8), fire: make(chan time.Time)}
}

func (m *manualTimer) after(d time.Duration) <-chan time.Time {
	m.asked <- d
	return m.fire
}

// waited returns the next wait the command started.
func (m *manualTimer) waited(t *testing.T) time.Duration {
	t.Helper()
	select {
	case d := <-m.asked:
		return d
	case <-time.After(10 * time.Second):
		t.Fatal("the command did not wait")
		return 0
	}
}
