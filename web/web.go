// Package web is the web inbox and run console `hitl serve` serves at /:
// Go templates and a small hand-written script, embedded. Forms work
// without JavaScript; the script adds live updates (a server-sent event
// stream of the log), browser notifications and in-place answers.
//
// Like every edge it only identifies the principal (a server-side sign-in
// from a personal token, a one-time Slack link, or the local person of a
// tokenless server) and translates errors: every rule is the root's.
package web

import (
	"context"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/eventstream"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// PageSize is how many questions an inbox page shows.
const PageSize = 50

// Config configures a Handler.
type Config struct {
	Services Services
	// Tokenless says the service has no tokens: the local person is
	// signed in, and requests must be addressed to a loopback name.
	Tokenless bool
	// TokenPrincipal finds the principal of a personal token (the API's
	// tokens): what the sign-in form checks.
	TokenPrincipal func(token string) (auth.Principal, bool)
	// TokenByID finds a token's principal as configured now by its id
	// (api:NAME): a sign-in started with a token acts with its current
	// scopes, and ends when the token is gone. Nil: as at sign-in.
	TokenByID func(id string) (auth.Principal, bool)
	// LoopbackHost reports whether a Host header names a loopback address
	// (the API's rule for a tokenless server).
	LoopbackHost func(host string) bool
	// BaseURL is the address people reach the service at (web.url).
	BaseURL string
	// SessionTTL is how long a sign-in holds (default
	// hitl.DefaultSignInTTL).
	SignInTTL time.Duration
	// Clock shows countdowns (default hitl.SystemClock).
	Clock  hitl.Clock
	Logger *slog.Logger
	// Heartbeat is how often an idle event stream gets a comment (default
	// 15 s).
	Heartbeat time.Duration
	// OIDC signs people in with the identity provider (oidc.go); nil:
	// not configured.
	OIDC *OIDC
}

// Handler serves the web inbox.
type Handler struct {
	cfg    Config
	svc    Services
	access access.Access
	tmpl   map[string]*template.Template
	mux    *http.ServeMux
	log    *slog.Logger
	static http.Handler
	stream *eventstream.Broadcaster // the pages' event streams: the log caught up, then live
	// closeStreams ends the pages' event streams (Close).
	closeStreams context.CancelFunc
	// local holds the secret of the local person's sign-in, on a
	// tokenless service (localSession).
	local struct {
		sync.Mutex
		secret string
	}
}

// New returns the web inbox over cfg.Services.
func New(cfg Config) *Handler {
	if cfg.Clock == nil {
		cfg.Clock = hitl.SystemClock{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = 15 * time.Second
	}
	if cfg.TokenPrincipal == nil {
		cfg.TokenPrincipal = func(string) (auth.Principal, bool) { return auth.Principal{}, false }
	}
	sub, _ := fs.Sub(staticFS, "static")
	base, closeStreams := context.WithCancel(context.Background())
	h := &Handler{cfg: cfg, svc: cfg.Services, access: cfg.Services.Access, log: cfg.Logger, mux: http.NewServeMux(),
		tmpl: parseTemplates(), static: http.StripPrefix("/static/", http.FileServerFS(sub)),
		stream: eventstream.New(base, cfg.Services.Log, cfg.Logger, nil), closeStreams: closeStreams}
	h.routes()
	return h
}

// Close ends the pages' event streams, so that a graceful shutdown does
// not wait for them (each page reconnects after the last id it saw, once
// the service is back). Pages and forms are still served: the HTTP
// server's Shutdown lets those in flight finish. Safe to call more than
// once.
func (h *Handler) Close() { h.closeStreams() }

func (h *Handler) routes() {
	h.mux.HandleFunc("GET /{$}", h.signedIn(h.handleInbox))
	h.mux.HandleFunc("POST /batch", h.signedIn(h.handleBatch))
	h.mux.HandleFunc("GET /q/{id}", h.signedIn(h.handleQuestion))
	h.mux.HandleFunc("POST /q/{id}/answer", h.signedIn(h.handleAnswer))
	h.mux.HandleFunc("GET /runs", h.signedIn(h.handleRuns))
	h.mux.HandleFunc("GET /runs/{id}", h.signedIn(h.handleRun))
	h.mux.HandleFunc("POST /runs/{id}/control", h.signedIn(h.handleControl))
	h.mux.HandleFunc("POST /rules/{id}/revoke", h.signedIn(h.handleRevoke))
	h.mux.HandleFunc("GET /events", h.signedIn(h.handleEvents))
	h.mux.HandleFunc("GET /login", h.handleLoginForm)
	h.mux.HandleFunc("POST /login", h.handleLogin)
	h.mux.HandleFunc("GET /login/link", h.handleLink)
	h.mux.HandleFunc("POST /logout", h.signedIn(h.handleLogout))
	h.routeOIDC()
	h.mux.Handle("GET /static/", h.static)
}

// Paths lists the path prefixes the web inbox serves; Mount sends the
// rest to the API.
func Paths(path string) bool {
	switch {
	case path == "/", path == "/runs", path == "/batch", path == "/events", path == "/login", path == "/logout",
		strings.HasPrefix(path, "/q/"), strings.HasPrefix(path, "/runs/"), strings.HasPrefix(path, "/rules/"),
		strings.HasPrefix(path, "/static/"), strings.HasPrefix(path, "/login/"):
		return true
	}
	return false
}

// Mount serves web's paths with web and everything else with api, on one
// listener.
func Mount(api http.Handler, web *Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if Paths(r.URL.Path) {
			web.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r)
	})
}

// contentSecurityPolicy allows the page's own script, style and stream
// only: no inline script or style, no frames, forms post only here.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// ServeHTTP implements http.Handler: security headers, the tokenless
// server's Host and Origin checks, then the route.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer h.recover(w, r)
	hd := w.Header()
	hd.Set("Content-Security-Policy", contentSecurityPolicy)
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "same-origin") // no-referrer would make a form post's Origin "null"
	if !strings.HasPrefix(r.URL.Path, "/static/") {
		hd.Set("Cache-Control", "no-store")
	}
	if err := h.checkOrigin(r); err != nil {
		h.fail(w, r, err)
		return
	}
	h.mux.ServeHTTP(w, r)
}

func (h *Handler) recover(w http.ResponseWriter, r *http.Request) {
	v := recover()
	if v == nil {
		return
	}
	if v == http.ErrAbortHandler {
		panic(v)
	}
	h.fail(w, r, fmt.Errorf("panic: %v\n%s", v, debug.Stack()))
}
