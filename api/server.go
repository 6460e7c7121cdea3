package api

import (
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/api/wire"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/eventstream"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/observe"
	"github.com/hitlbot/hitl/steer"
)

// Defaults of ServerConfig.
const (
	DefaultMaxBodyBytes = 1 << 20
	DefaultMaxWait      = 5 * time.Minute
	DefaultHeartbeat    = 15 * time.Second
	// DefaultStreamWriteTimeout is how long one write to an SSE stream may
	// block before the reader is deemed gone.
	DefaultStreamWriteTimeout = 30 * time.Second
)

// ServerConfig configures a Server. Zero fields take defaults.
type ServerConfig struct {
	// Tokens are the bearer tokens and the principals they identify. When
	// empty, the server trusts the local machine: every request acts as
	// the local person ("local", or "local:"+X-Hitl-User when that header
	// is set), and requests a web page could send are refused.
	Tokens []Token
	// Metrics serves GET /metrics (to admins: svc's AuthorizeScrape
	// decides); nil: /metrics is not served here.
	Metrics http.Handler
	// InteractionThreshold is the service's default (GET /healthz).
	InteractionThreshold *int
	// SlackEnabled tells clients (GET /healthz) that people answer in Slack.
	SlackEnabled bool
	// Ready reports whether this process can serve (its database
	// answers); GET /healthz answers its error (503 unavailable) when it
	// fails. nil: always ready.
	Ready func(context.Context) error
	// MaxBodyBytes bounds request bodies (default 1 MiB).
	MaxBodyBytes int64
	// MaxWait caps a long poll's ?wait= (default 5 min).
	MaxWait time.Duration
	// Heartbeat is how often an idle SSE stream gets a comment line to keep
	// proxies from closing it (default 15 s).
	Heartbeat time.Duration
	// StreamWriteTimeout bounds each write to an SSE stream (default
	// 30 s): a reader that stops reading is dropped instead of holding a
	// goroutine and a connection forever. It is wall-clock time.
	StreamWriteTimeout time.Duration
	// Clock stamps heartbeats (default hitl.SystemClock).
	Clock hitl.Clock
	// Logger receives internal errors and recovered panics (default
	// slog.Default()).
	Logger *slog.Logger
}

// Server is the agent HTTP API. It implements http.Handler; the caller owns
// the listener and the http.Server, best built by NewHTTPServer (read
// timeouts, no WriteTimeout: long polls and the SSE stream set their own
// write deadlines).
type Server struct {
	svc      hitl.QuestionService
	runs     hitl.RunService      // nil: steering is not served
	policies hitl.PolicyService   // nil: approval policies are not served
	stats    observe.StatsService // nil: stats are not served
	webhooks hitl.WebhookService  // nil: webhooks are not served
	audit    hitl.AuditService    // nil: the audit trail is not served
	guard    hitl.FloodGuard      // nil: nothing bounds streams and policy calls
	scrape   ScrapeGuard          // nil: /metrics is refused
	holds    Holds                // nil: held hook calls are not served
	events   hitl.EventLog
	stream   *eventstream.Broadcaster // fans the log out to the SSE streams
	cfg      ServerConfig
	log      *slog.Logger
	tokens   []tokenEntry
	mux      *http.ServeMux

	// base is cancelled by Close; long polls and streams end with it.
	base       context.Context
	cancelBase context.CancelFunc
}

// Token is a bearer token and the principal it identifies.
type Token struct {
	Secret    string
	Principal auth.Principal
}

type tokenEntry struct {
	sum       [sha256.Size]byte
	principal auth.Principal
}

var _ http.Handler = (*Server)(nil)

// Services is what the API serves, part by part. Questions and Log are
// required; a nil part is not served (its routes answer 501). cmd/hitl
// fills it from service.Service's parts (cmd/hitl/adapters.go); client.Client
// implements the first five over HTTP.
type Services struct {
	Questions hitl.QuestionService
	Log       hitl.EventLog
	Runs      hitl.RunService      // steering: topics, checkpoints, run lists
	Policies  hitl.PolicyService   // approval policies
	Stats     observe.StatsService // GET /api/stats
	Webhooks  hitl.WebhookService  // /api/webhooks…
	Audit     hitl.AuditService    // /api/audit…
	// Guard bounds each principal's streams and rate-limits its control,
	// run and policy requests.
	Guard hitl.FloodGuard
	// Scrape decides who may scrape /metrics.
	Scrape ScrapeGuard
	// Holds holds paused checkpoints and lets go of held hook calls.
	Holds Holds
}

// ScrapeGuard applies the rule of who may scrape /metrics.
type ScrapeGuard interface {
	AuthorizeScrape(ctx context.Context) error
}

// Holds is how the service holds a caller while its run is paused
// (service.Runs): a checkpoint until a resume or a cancel, and letting go
// of a held hook call that went away.
type Holds interface {
	HoldWhilePaused(ctx, wait context.Context, e steer.StateEvent, cp hitl.Checkpoint) (hitl.Checkpoint, error)
	LetGo(ctx context.Context, id string, version uint64) error
}

// NewServer returns the API over svcs.
func NewServer(svcs Services, cfg ServerConfig) *Server {
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.MaxWait <= 0 {
		cfg.MaxWait = DefaultMaxWait
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = DefaultHeartbeat
	}
	if cfg.StreamWriteTimeout <= 0 {
		cfg.StreamWriteTimeout = DefaultStreamWriteTimeout
	}
	if cfg.Clock == nil {
		cfg.Clock = hitl.SystemClock{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Server{svc: svcs.Questions, events: svcs.Log, runs: svcs.Runs, policies: svcs.Policies, stats: svcs.Stats,
		webhooks: svcs.Webhooks, audit: svcs.Audit, guard: svcs.Guard, scrape: svcs.Scrape, holds: svcs.Holds,
		cfg: cfg, log: cfg.Logger, mux: http.NewServeMux()}
	s.base, s.cancelBase = context.WithCancel(context.Background())
	s.stream = eventstream.New(s.base, svcs.Log, cfg.Logger, encodeFrame)
	for _, t := range cfg.Tokens {
		s.tokens = append(s.tokens, tokenEntry{sum: sha256.Sum256([]byte(t.Secret)), principal: t.Principal})
	}
	s.routes()
	return s
}

func (s *Server) routes() {
	s.mux.HandleFunc("GET /healthz", s.handleHealth)
	s.mux.HandleFunc("GET /api/whoami", s.handleWhoami)
	s.mux.HandleFunc("POST /api/jobs/{id}/questions", s.handleAsk)
	s.mux.HandleFunc("GET /api/jobs/{id}/questions", s.handleRunQuestions)
	s.mux.HandleFunc("GET /api/jobs/{id}", s.handleRunState)
	s.mux.HandleFunc("GET /api/runs/{id}", s.handleRun)
	s.mux.HandleFunc("GET /api/runs", s.handleRuns)
	s.mux.HandleFunc("POST /api/runs/{id}/checkpoint", s.handleCheckpoint)
	s.mux.HandleFunc("POST /api/runs/{id}/hook", s.handleHook)
	s.mux.HandleFunc("GET /api/runs/{id}/hold", s.handleHold)
	s.mux.HandleFunc("POST /api/jobs/{id}", s.handleThreshold)
	s.mux.HandleFunc("GET /api/policy", s.handlePolicy)
	s.mux.HandleFunc("PUT /api/policy", s.handleSetPolicy)
	s.mux.HandleFunc("POST /api/policy/rules/{id}/revoke", s.handleRevoke)
	s.mux.HandleFunc("GET /api/policy/rules", s.handleLearnedRules)
	s.mux.HandleFunc("POST /api/policy/check", s.handleCheck)
	s.mux.HandleFunc("POST /api/approvals", s.handleApprovals)
	s.mux.HandleFunc("POST /api/topics/loop:control", s.handleControl)
	s.mux.HandleFunc("POST /api/topics/loop:current", s.handleCurrent)
	s.mux.HandleFunc("GET /api/topics/loop:control", s.handleTopic(steer.TopicControl))
	s.mux.HandleFunc("GET /api/topics/loop:current", s.handleTopic(steer.TopicCurrent))
	s.mux.HandleFunc("GET /api/questions", s.handleQuestions)
	s.mux.HandleFunc("GET /api/questions/pending", s.handlePending)
	s.mux.HandleFunc("GET /api/questions/{id}", s.handleQuestion)
	s.mux.HandleFunc("POST /api/questions/{id}/answer", s.handleAnswer)
	s.mux.HandleFunc("POST /api/questions/{id}/cancel", s.handleCancel)
	s.mux.HandleFunc("POST /api/questions/{id}/receive", s.handleReceive)
	s.mux.HandleFunc("POST /api/questions/{id}/reassign", s.handleReassign)
	s.mux.HandleFunc("GET /api/events", s.handleEvents)
	s.mux.HandleFunc("GET /api/stats", s.handleStats)
	s.mux.HandleFunc("GET /api/webhooks", s.handleWebhooks)
	s.mux.HandleFunc("GET /api/webhooks/deliveries", s.handleWebhookDeliveries)
	s.mux.HandleFunc("POST /api/webhooks/deliveries/{seq}/replay", s.handleWebhookReplay)
	s.mux.HandleFunc("POST /api/webhooks/{name}/test", s.handleWebhookTest)
	s.mux.HandleFunc("GET /api/audit", s.handleAudit)
	s.mux.HandleFunc("GET /api/audit/verify", s.handleAuditVerify)
	if s.cfg.Metrics != nil {
		s.mux.HandleFunc("GET /metrics", s.handleMetrics)
	}
}

// ServeHTTP implements http.Handler: recover, guard a server without
// tokens from browsers, authenticate, route.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer s.recover(w, r)
	if s.closing() {
		writeError(w, r, s.log, errClosing()) // no new work: try again
		return
	}
	if len(s.tokens) == 0 {
		if err := checkLoopback(r); err != nil {
			writeError(w, r, s.log, err)
			return
		}
	}
	r, err := s.authenticate(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	h, pattern := s.mux.Handler(r)
	if pattern == "" {
		s.noRoute(w, r, h)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// Close starts a graceful shutdown (docs/operations.md#graceful-restarts):
// the long polls and held checkpoints in flight answer 503 unavailable with
// Retry-After (ShutdownRetryAfter), the SSE streams end (their clients
// resume with Last-Event-ID), and every request that arrives after it is
// answered the same 503, so that clients retry elsewhere or later and
// http.Server.Shutdown waits only for the requests doing work. Call it
// before Shutdown, and cancel the requests' contexts only after. It is
// safe to call more than once.
func (s *Server) Close() {
	s.cancelBase()
}

// recover turns a panic into a 500 JSON error, so that no input can take
// the process down or leave the client without an answer.
func (s *Server) recover(w http.ResponseWriter, r *http.Request) {
	v := recover()
	if v == nil {
		return
	}
	if v == http.ErrAbortHandler {
		panic(v)
	}
	writeError(w, r, s.log, fmt.Errorf("panic: %v\n%s", v, debug.Stack()))
}

// noRoute answers requests no pattern matches: 404, or 405 when the path
// exists with other methods (h is the mux's own plain-text handler; it is
// only asked for the status and the Allow header).
func (s *Server) noRoute(w http.ResponseWriter, r *http.Request, h http.Handler) {
	probe := &statusProbe{header: http.Header{}}
	h.ServeHTTP(probe, r)
	switch probe.status {
	case http.StatusMethodNotAllowed:
		if allow := probe.header.Get("Allow"); allow != "" {
			w.Header().Set("Allow", allow)
		}
		writeError(w, r, s.log, fault.Errorf(wire.CodeMethodNotAllowed, "%s is not allowed on %s", r.Method, r.URL.Path))
	case http.StatusMovedPermanently, http.StatusPermanentRedirect, http.StatusTemporaryRedirect, http.StatusFound:
		if loc := probe.header.Get("Location"); loc != "" {
			w.Header().Set("Location", loc)
		}
		w.WriteHeader(probe.status)
	default:
		writeError(w, r, s.log, fault.Errorf(fault.ENOTFOUND, "no route for %s %s", r.Method, r.URL.Path))
	}
}

// statusProbe records what the mux's fallback handler would write.
type statusProbe struct {
	header http.Header
	status int
}

func (p *statusProbe) Header() http.Header { return p.header }
func (p *statusProbe) WriteHeader(status int) {
	if p.status == 0 {
		p.status = status
	}
}
func (p *statusProbe) Write(b []byte) (int, error) {
	p.WriteHeader(http.StatusOK)
	return len(b), nil
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Ready != nil {
		if err := s.cfg.Ready(r.Context()); err != nil {
			if fault.Code(err) == fault.EINTERNAL {
				err = fault.Errorf(fault.EUNAVAILABLE, "not ready: %v", err)
			}
			writeError(w, r, s.log, err)
			return
		}
	}
	writeJSON(w, http.StatusOK, wire.Health{OK: true, Slack: s.cfg.SlackEnabled, InteractionThreshold: s.cfg.InteractionThreshold})
}
