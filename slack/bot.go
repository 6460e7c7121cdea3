// Package slack is hitl's Slack edge: it posts questions through a durable,
// rate-paced outbox, takes answers from buttons, modals and thread replies
// over Socket Mode, keeps messages up to date, and shows each person their
// queue in App Home. It talks to the application only through Service,
// the narrow parts of it the bot uses (service.go, filled by the wiring in
// cmd/hitl/adapters.go), and renders its messages with the pure package
// blocks.
package slack

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/auth"
	goslack "github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
)

// Config configures the bot.
type Config struct {
	AppToken       string        // xapp-…, for Socket Mode
	BotToken       string        // xoxb-…, for the Web API
	APIURL         string        // Web API base URL; "" for Slack's
	DefaultChannel string        // where questions without a channel or assignee go
	Access         access.Access // who may answer: the root's rules
	Clock          hitl.Clock
	Logger         *slog.Logger

	// PostInterval is the least time between two writes to one channel
	// (Slack allows about one message per second per channel).
	PostInterval time.Duration
	// RetryMin and RetryMax bound the backoff after network or server errors.
	RetryMin, RetryMax time.Duration
	// HomeRefresh is the least time between two App Home refreshes of a person.
	HomeRefresh time.Duration

	// RunsChannel gets one live message per steerable run ("" for none).
	RunsChannel string
	// Models are offered when escalating a run (the first is the default;
	// [opus] when empty).
	Models []string
	// RunUpdateEvery is the least time between two updates of a run's live
	// message (chat.update limits); a burst becomes one update.
	RunUpdateEvery time.Duration
	// After is the timer the bot waits on between run updates (time.After
	// when nil); tests inject their own.
	After func(time.Duration) <-chan time.Time
	// WebURL is the web inbox's address (web.url): question messages
	// link to their page there ("": no link).
	WebURL string
	// WebLink makes the one-time sign-in link to the web inbox that
	// /hitl web sends p (nil: no web inbox).
	WebLink func(ctx context.Context, p auth.Principal) (string, error)
	// Redispatch, when set, also looks for targets with work this often,
	// not only when this process enqueued some: an outbox shared by
	// replicas hands a target whose holder stopped to another (0: only
	// when kicked, for an outbox of one process).
	Redispatch time.Duration

	// AlertsChannel gets a message when an alert starts and when it
	// clears ("" for none; alerts.go).
	AlertsChannel string
	// OnAPIError, when set, hears of every failed Slack Web API call:
	// its method and error (hitl_slack_api_errors_total).
	OnAPIError func(method, code string)
	// Envelopes remembers the Socket Mode envelopes handled (the store:
	// shared by the replicas on one database). Required.
	Envelopes hitl.EnvelopeStore
}

func (c *Config) setDefaults() {
	if c.Clock == nil {
		c.Clock = hitl.SystemClock{}
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.PostInterval <= 0 {
		c.PostInterval = time.Second
	}
	if c.RetryMin <= 0 {
		c.RetryMin = time.Second
	}
	if c.RetryMax <= 0 {
		c.RetryMax = time.Minute
	}
	if c.HomeRefresh <= 0 {
		c.HomeRefresh = 2 * time.Second
	}
	if len(c.Models) == 0 {
		c.Models = []string{"opus"}
	}
	if c.RunUpdateEvery <= 0 {
		c.RunUpdateEvery = 2 * time.Second
	}
	if c.After == nil {
		c.After = time.After
	}
}

// Bot is the running Slack bot.
type Bot struct {
	cfg    Config
	log    *slog.Logger
	api    slackAPI
	sm     *socketmode.Client // nil in unit tests: no Socket Mode
	svc    Service
	outbox hitl.Outbox

	identity identity
	groups   *groupCache
	homes    *homes
	work     *workers
	retry    *backoff
	posted   postings
	runs     *runPace
	links    *permalinks
	http     *http.Client
	// respond posts to a response_url (slash commands, clicks).
	respond func(ctx context.Context, url string, msg *goslack.WebhookMessage) error
	// enqueued is the highest delivery Seq the projector enqueued.
	enqueued atomic.Uint64
	// enqueuing is the projector's turn: who moves the outbox's cursor
	// (outbox.go).
	enqueuing sync.Mutex
	// resumed holds the Seqs of deliveries handed over from a process
	// that may have started them, until done (resume.go).
	resumed sync.Map
	// done ends with the bot (closed by Close): waits between run updates
	// stop on it.
	done <-chan struct{}

	envelopes map[socketmode.EventType]envelopeHandler // by envelope type
	actions   map[string]actionHandler                 // by action id, on questions
	controls  map[string]controlHandler                // by action id, on runs and rules
	views     map[string]viewHandler                   // by callback id

	cancel context.CancelFunc
	wg     sync.WaitGroup // the bot's loops and the envelope handlers in flight

	// calls is the context of Slack Web API calls made by the outbox. It
	// outlives cancel by a grace period, so a post Slack already accepted is
	// recorded rather than cut off (and posted again after a restart).
	calls       context.Context
	cancelCalls context.CancelFunc
}

// closeGrace is how long Close lets in-flight Slack calls finish.
const closeGrace = 5 * time.Second

// New returns a bot over svc (*service.Service) that keeps its deliveries in
// outbox; Start runs it.
func New(cfg Config, svc Service, outbox hitl.Outbox) *Bot {
	cfg.setDefaults()
	opts := []goslack.Option{
		goslack.OptionAppLevelToken(cfg.AppToken),
		goslack.OptionHTTPClient(&http.Client{Timeout: 30 * time.Second}),
	}
	if cfg.APIURL != "" {
		opts = append(opts, goslack.OptionAPIURL(cfg.APIURL))
	}
	api := goslack.New(cfg.BotToken, opts...)
	b := newBot(cfg, api, svc, outbox)
	b.sm = socketmode.New(api, socketmode.OptionLog(slogAdapter{b.log}))
	return b
}

// newBot returns a bot that calls api, without Socket Mode.
func newBot(cfg Config, api slackAPI, svc Service, outbox hitl.Outbox) *Bot {
	cfg.setDefaults()
	if cfg.OnAPIError != nil {
		api = countedAPI{api, cfg.OnAPIError}
	}
	b := &Bot{
		cfg: cfg, log: cfg.Logger.With("component", "slack"), api: api,
		svc: svc, outbox: outbox,
		retry: newBackoff(cfg.RetryMin, cfg.RetryMax),
		runs:  newRunPace(cfg.Clock, cfg.RunUpdateEvery),
		links: newPermalinks(api),
		http:  &http.Client{Timeout: 30 * time.Second},
	}
	b.respond = func(ctx context.Context, url string, msg *goslack.WebhookMessage) error {
		return goslack.PostWebhookCustomHTTPContext(ctx, url, b.http, msg)
	}
	b.groups = newGroupCache(api, cfg.Clock, 5*time.Minute, cfg.Access)
	b.homes = newHomes(b)
	b.work = newWorkers(b)
	b.registerEnvelopes()
	b.registerActions()
	b.registerControls()
	b.registerViews()
	return b
}

// Start connects to Slack and starts the outbox in the background. Slack
// being down is not an error: the bot keeps retrying and questions wait in
// the outbox.
func (b *Bot) Start(ctx context.Context) {
	if b.cfg.DefaultChannel == "" {
		b.log.Warn("no default Slack channel (HITL_SLACK_CHANNEL): only questions with a channel or assignees are posted")
	}
	// The bot reads every question to render it, and decides nothing as
	// itself: answers go out as the Slack user who gave them.
	ctx = auth.WithEdge(auth.WithPrincipal(ctx, auth.ObserverPrincipal("slack-bot")), auth.EdgeSlack)
	ctx, b.cancel = context.WithCancel(ctx)
	b.done = ctx.Done()
	b.calls, b.cancelCalls = context.WithCancel(context.WithoutCancel(ctx))
	b.wg.Add(4)
	go func() {
		defer b.wg.Done()
		if err := b.seedGroups(ctx); err != nil && ctx.Err() == nil {
			b.log.Error("reading the groups pending questions are listed for failed; their members see them once they change", "err", err)
		}
	}()
	go func() { defer b.wg.Done(); b.project(ctx) }()
	go func() { defer b.wg.Done(); b.work.run(ctx) }()
	go func() { defer b.wg.Done(); b.homes.run(ctx) }()
	if b.sm != nil {
		b.wg.Add(1)
		go func() { defer b.wg.Done(); b.runSocket(ctx) }()
	}
}

// Close stops the bot and waits for its goroutines, the envelope handlers
// in flight included. Queued work stays in the outbox for the next start.
func (b *Bot) Close() {
	if b.cancel == nil {
		return
	}
	b.cancel()
	done := make(chan struct{})
	go func() { b.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(closeGrace):
		b.cancelCalls()
		<-done
	}
	b.cancelCalls()
}

// actor is how a Slack user is recorded as answerer.
func actor(userID string) string { return "slack:" + userID }

type slogAdapter struct{ l *slog.Logger }

func (a slogAdapter) Output(_ int, s string) error {
	a.l.Debug(s)
	return nil
}
