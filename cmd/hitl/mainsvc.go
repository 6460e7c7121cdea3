package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/api"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/email"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/observe"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/shell"
	"github.com/hitlbot/hitl/slack"
	"github.com/hitlbot/hitl/sweeper"
	"github.com/hitlbot/hitl/web"
	"github.com/hitlbot/hitl/webhook"
)

// Main is the running service: store, lifecycle, HTTP API, sweeper. Tests
// start it on :0 with a temp dir and Close it.
type Main struct {
	// oidc is sign-in with web.oidc's provider (mainoidc.go; nil: none).
	oidc *web.OIDC

	Config config.Config
	Logger *slog.Logger
	Clock  hitl.Clock

	DB      Database // a bbolt file or PostgreSQL (database.go)
	Service *service.Service
	Bot     *slack.Bot // nil when Slack is off

	// SlackTuning adjusts the bot's pacing and retries (tests shorten them).
	SlackTuning func(*slack.Config)
	// MailEvery is how often the mailer looks for mail due again
	// (mainemail.go; tests shorten it).
	MailEvery time.Duration
	// WebhookTuning adjusts the webhook worker (mainwebhook.go; tests
	// shorten its poll or inject its clock's jitter).
	WebhookTuning func(*webhook.Config)

	ln       net.Listener
	api      *api.Server
	http     *http.Server
	sweeper  *sweeper.Sweeper
	mailer   *email.Mailer
	webhooks *webhook.Worker
	obs      *observability // alerts and metrics (metricsvc.go)
	served   chan struct{}
	pages    *web.Handler
	stop     context.CancelFunc // cancels the requests still in flight once ShutdownGrace ran out
}

// ShutdownGrace is how long Close lets the requests in flight (answers,
// asks, control requests: writes) finish once the service stopped taking
// work, before it cuts them (docs/operations.md#graceful-restarts).
const ShutdownGrace = 5 * time.Second

// NewMain returns a Main for cfg; Run starts it.
func NewMain(cfg config.Config, logger *slog.Logger) *Main {
	return &Main{Config: cfg, Logger: logger, Clock: hitl.SystemClock{}}
}

// Run opens the store and starts serving. It returns once the service
// accepts connections; Close stops it.
func (m *Main) Run(ctx context.Context) (err error) {
	defer func() {
		if err != nil {
			m.Close()
		}
	}()
	sealed, err := sealer(m.Config)
	if err != nil {
		return err
	}
	auditKey, err := auditKey(m.Config)
	if err != nil {
		return err
	}
	db, err := openDatabase(ctx, m.Config, m.Logger)
	if err != nil {
		return err
	}
	m.DB = db
	m.Service = m.service(db, sealed, auditKey)
	hooks, err := m.webhookConfig()
	if err != nil {
		return err
	}
	if err := m.Service.Policies.LoadPolicy(ctx, m.Config.PolicyRules()); err != nil {
		return err
	}
	// Sensitive answers sealed by the previous run cannot be opened (the
	// key died with it): ask for them again.
	if n, err := m.Service.Questions.ReopenSealed(ctx); err != nil {
		return err
	} else if n > 0 {
		m.Logger.Warn("sensitive answers were lost to the restart before their agents received them; asking again", "questions", n)
	}
	if err := m.startObservability(ctx, func() int { return m.api.EventStreams() }); err != nil {
		return err
	}
	if m.sweeper, err = sweeper.Start(m.Config.SweepSchedule, m.sweepWork(), m.Logger); err != nil {
		return fault.Errorf(fault.EINVALID, "sweep_schedule: %v", err)
	}
	if m.Config.Slack.Enabled() {
		sc := m.slackConfig()
		if sc.Redispatch == 0 {
			sc.Redispatch = db.redispatch
		}
		m.Bot = slack.New(sc, botServiceOf(m.Service), m.DB)
		m.Service.SetDirectory(m.Bot.Directory())
		m.Bot.Start(context.Background())
	}
	if err := m.startMailer(); err != nil {
		return err
	}
	m.startWebhooks(hooks)
	if m.ln, err = net.Listen("tcp", m.Config.Listen); err != nil {
		return fault.Errorf(fault.EUNAVAILABLE, "listen on %s: %v", m.Config.Listen, err)
	}
	m.api = api.NewServer(apiServicesOf(m.Service), api.ServerConfig{Tokens: m.tokens(), Clock: m.Clock, Logger: m.Logger,
		SlackEnabled: m.Config.Slack.Enabled(), InteractionThreshold: m.Config.InteractionThreshold, Metrics: m.metricsOnAPI(), Ready: db.ready})
	if err := m.serveMetrics(); err != nil {
		return err
	}
	dctx, cancel := context.WithTimeout(ctx, oidcTimeout)
	m.oidc, err = m.oidcSignIn(dctx)
	cancel()
	if err != nil {
		return err
	}
	base, stop := context.WithCancel(context.Background())
	m.stop = stop
	// Slow clients are timed out (headers, bodies, idle connections); long
	// polls and event streams set their own write deadlines.
	m.pages = m.web()
	m.http = api.NewHTTPServer(web.Mount(m.api, m.pages), func(net.Listener) context.Context { return base })
	m.served = make(chan struct{})
	go func() {
		defer close(m.served)
		if err := m.http.Serve(m.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			m.Logger.Error("http server stopped", "err", err)
		}
	}()
	return nil
}

// URL is where the API listens, e.g. http://127.0.0.1:7070.
func (m *Main) URL() string { return "http://" + m.ln.Addr().String() }

// Close stops serving and closes the store. Safe to call after a failed
// Run. It is a graceful shutdown (docs/operations.md#graceful-restarts):
// the API takes no more work and answers what waits 503 unavailable with
// Retry-After (long polls, held checkpoints; streams end), the listener
// closes, the requests in flight get ShutdownGrace to finish, and only
// then are the rest cut and the workers and the store closed.
func (m *Main) Close() error {
	if m.api != nil {
		m.api.Close()
	}
	if m.pages != nil {
		m.pages.Close()
	}
	if m.http != nil {
		ctx, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
		err := m.http.Shutdown(ctx)
		cancel()
		if err != nil {
			m.stop()
			m.http.Close()
		}
		<-m.served
	}
	if m.stop != nil {
		m.stop()
	}
	if m.sweeper != nil {
		m.sweeper.Stop()
	}
	m.obs.close()
	if m.Bot != nil {
		m.Bot.Close()
	}
	if m.mailer != nil {
		m.mailer.Close()
	}
	if m.webhooks != nil {
		m.webhooks.Close()
	}
	if m.DB != nil {
		return m.DB.Close()
	}
	return nil
}

func (m *Main) access() access.Access { return m.Config.Access() }

// service builds the service's parts, each from what it uses: its stores
// by aggregate (all of them db), the clock, the notifier, the rules, and
// the parts it calls.
func (m *Main) service(db *database, sealed hitl.Sealer, auditKey []byte) *service.Service {
	routes, callbacks := m.Config.HitlWebhooks()
	rl := m.Config.RateLimits
	acc, clock, n := m.access(), m.Clock, db.notifier
	guard := service.NewGuard(service.GuardConfig{Store: db, Clock: clock, Access: acc, Notifier: n,
		Limits: map[hitl.Limit]hitl.Limiter{
			hitl.LimitControl: db.limiter("control", rl.ControlPerMinute, 0),
			hitl.LimitRuns:    db.limiter("runs", rl.RunsPerMinute, 0),
			hitl.LimitPolicy:  db.limiter("policy", rl.PolicyPerMinute, 0),
		},
		MaxStreams: m.Config.MaxStreams})
	questions := service.NewQuestions(service.QuestionsConfig{Store: db, Clock: clock, Timeouts: m.Config.HitlTimeouts(),
		Access: acc, Limiter: db.limiter("questions", rl.TokenPerMinute, rl.RunPerMinute), Notifier: n, Sealer: sealed,
		Threshold: m.Config.InteractionThreshold, Reminders: m.Config.HitlReminders(), Webhooks: routes, Callbacks: callbacks,
		Guard: guard})
	return &service.Service{
		Questions: questions,
		Runs: service.NewRuns(service.RunsConfig{Store: db, Clock: clock, Access: acc, Notifier: n,
			Threshold: m.Config.InteractionThreshold, Sessions: m.Config.Sessions.Times(), Webhooks: routes, Guard: guard,
			Questions: questions}),
		Policies: service.NewPolicies(service.PoliciesConfig{Store: db, Clock: clock, Access: acc, Notifier: n,
			ParseCommand: shell.Parse, LearnedTTL: time.Duration(m.Config.Policy.LearnedTTL), Enforce: m.Config.Policy.Enforce,
			Callbacks: callbacks, Guard: guard, Questions: questions}),
		Guard:    guard,
		Webhooks: service.NewWebhooks(service.WebhooksConfig{Store: db, Clock: clock, Access: acc, Notifier: n, Routes: routes, Guard: guard}),
		SignIns:  service.NewSignIns(service.SignInsConfig{Store: db, Clock: clock, Access: acc, Audited: true, Guard: guard}),
		Observation: service.NewObservation(service.ObservationConfig{Store: db, Clock: clock, Access: acc, Notifier: n,
			Window: observe.New(db), Guard: guard, Questions: questions}),
		Log:   service.NewLog(db, n),
		Audit: service.NewAudit(service.AuditConfig{Trail: db, Key: auditKey, Clock: clock, Access: acc, Guard: guard}),
	}
}

func (m *Main) tokens() []api.Token {
	out := make([]api.Token, len(m.Config.Tokens))
	for i, t := range m.Config.Tokens {
		out[i] = api.Token{Secret: t.Token, Principal: t.Principal()}
	}
	return out
}

func (m *Main) slackConfig() slack.Config {
	s := m.Config.Slack
	c := slack.Config{
		AppToken: s.AppToken, BotToken: s.BotToken, APIURL: s.APIURL, DefaultChannel: s.Channel,
		Access: m.access(), Envelopes: m.DB,
		Clock: m.Clock, Logger: m.Logger,
		RunsChannel: s.RunsChannel, Models: s.Models, WebLink: m.webLink, WebURL: m.Config.Web.URL,
		AlertsChannel: m.Config.Alerts.Channel, OnAPIError: m.obs.metrics.SlackAPIError,
	}
	if m.SlackTuning != nil {
		m.SlackTuning(&c)
	}
	return c
}
