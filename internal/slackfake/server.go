// Package slackfake is a local, in-process fake of the parts of Slack that the
// hitl bot talks to: the Web API (chat.*, views.*, reactions.add,
// conversations.open, usergroups.users.list, auth.test,
// apps.connections.open) and Socket Mode. It is a test double meant to be
// driven with the real slack-go client:
//
//	srv := slackfake.New(t, slackfake.FailOnReject())
//	api := slack.New(srv.BotToken(), slack.OptionAPIURL(srv.APIURL()),
//		slack.OptionAppLevelToken(srv.AppToken()))
//	go runBot(ctx, api, socketmode.New(api))
//	q, err := srv.WaitForMessage(ctx, "C0HITL", func(m slackfake.Message) bool { return m.Text != "" })
//	ack, err := srv.SendInteractive(ctx, srv.BlockActions("U0ALICE", "C0HITL", q.TS, "approve", "q-1", ""))
//	_, err = srv.WaitForCall(ctx, "chat.update", func(c slackfake.Call) bool { return c.OK })
//
// The fake validates payloads the way Slack does (Block Kit limits, required
// arguments, tokens, trigger expiry) and answers Slack's error codes; it
// records every call, lets a test script failures (429 with Retry-After,
// 5xx, outages, socket disconnects, calls held until released) and pushes
// Socket Mode envelopes whose payloads have the shapes Slack sends.
// Interaction payloads are built from what the bot really posted or opened,
// so a test cannot click a button the bot never rendered.
//
// Everything listens on 127.0.0.1. Waiting helpers block on a condition that
// every state change signals; nothing polls or sleeps.
package slackfake

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Identifiers of the fake workspace and app. They look like real Slack IDs.
const (
	TeamID     = "T0FAKE0001"
	TeamDomain = "slackfake"
	AppID      = "A0FAKE0001"
	BotID      = "B0FAKE0001"
	BotUserID  = "U0FAKEBOT1"
	BotName    = "hitl"

	// DefaultBotToken and DefaultAppToken are the tokens the fake accepts
	// unless WithTokens says otherwise.
	DefaultBotToken = "xoxb-1000000001-2000000002-slackfakebottoken"
	DefaultAppToken = "xapp-1-A0FAKE0001-3000000003-slackfakeapptoken"

	// VerificationToken is the deprecated verification token Slack still
	// puts in every payload's "token" field.
	VerificationToken = "slackfake-verification-token"
)

// Clock tells the fake what time it is. Trigger expiry, the post rate limiter
// and message timestamps use it; socket deadlines use real time.
type Clock interface {
	Now() time.Time
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

// ManualClock is a Clock that only moves when told to.
type ManualClock struct {
	mu sync.Mutex
	t  time.Time
}

// NewManualClock returns a clock stopped at t.
func NewManualClock(t time.Time) *ManualClock { return &ManualClock{t: t} }

// Now returns the clock's current time.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type config struct {
	botToken, appToken string
	clock              Clock
	failOnReject       bool
	allowedRejects     map[string]bool
	postRate           float64 // tokens per second; 0 = unlimited
	postBurst          int
	ackTimeout         time.Duration
	triggerTTL         time.Duration
	pingInterval       time.Duration
	users              map[string]string   // id -> name
	channels           map[string]string   // id -> name
	groups             map[string][]string // user group id -> members
	emails             map[string]string   // user id -> profile email (users.go)
}

// Option configures a Server.
type Option func(*config)

// WithTokens sets the bot token (xoxb-...) and app-level token (xapp-...)
// the fake accepts.
func WithTokens(bot, app string) Option {
	return func(c *config) { c.botToken, c.appToken = bot, app }
}

// WithClock injects the clock used for trigger expiry, rate limiting and
// timestamps.
func WithClock(clock Clock) Option { return func(c *config) { c.clock = clock } }

// FailOnReject makes every rejected Web API call (any {"ok":false} answer the
// fake gives, such as invalid_blocks, message_not_found or
// expired_trigger_id) fail the test with t.Errorf, except for the error codes
// listed in allowed. Scripted failures (FailNext, SetDown, the rate limiter)
// are not rejections.
func FailOnReject(allowed ...string) Option {
	return func(c *config) {
		c.failOnReject = true
		for _, code := range allowed {
			c.allowedRejects[code] = true
		}
	}
}

// WithPostRateLimit limits chat.postMessage to perSecond messages per second
// per channel with bursts of up to burst, like Slack's special limit of about
// one message per second per channel. Calls over the limit get HTTP 429 with a
// Retry-After header in whole seconds. Time comes from the injected clock.
func WithPostRateLimit(perSecond float64, burst int) Option {
	return func(c *config) { c.postRate, c.postBurst = perSecond, max(burst, 1) }
}

// WithAckTimeout changes how long Send* waits for the client's ack. Slack's
// deadline, and the default, is 3 seconds.
func WithAckTimeout(d time.Duration) Option { return func(c *config) { c.ackTimeout = d } }

// WithTriggerTTL changes how long a trigger_id stays valid. Slack's, and the
// default, is 3 seconds.
func WithTriggerTTL(d time.Duration) Option { return func(c *config) { c.triggerTTL = d } }

// WithPingInterval sets how often the fake sends WebSocket pings (default
// 10 s; slack-go drops a connection that got no ping for 30 s).
func WithPingInterval(d time.Duration) Option { return func(c *config) { c.pingInterval = d } }

// WithUser names a user. Payloads use the name as username and name.
func WithUser(id, name string) Option { return func(c *config) { c.users[id] = name } }

// WithChannel names a channel. Once any channel is declared this way, the
// fake answers channel_not_found for channels it does not know (declared
// ones and DMs from conversations.open); otherwise any well-formed
// conversation ID (C..., D..., G...) is accepted.
func WithChannel(id, name string) Option { return func(c *config) { c.channels[id] = name } }

// Server is a fake Slack: Web API and Socket Mode on one httptest server.
type Server struct {
	t   testing.TB
	cfg config
	ts  *httptest.Server

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every state change
	closed  bool

	calls      []Call
	rejections []Rejection
	messages   map[string][]*message // channel -> messages in post order
	ephemerals []Message
	reactions  []Reaction
	lastTS     int64 // microseconds of the last issued ts
	seq        int
	dms        map[string]string // sorted user list -> conversation id
	triggers   map[string]*trigger
	views      map[string]*viewState
	viewOrder  []string          // modal view IDs in views.open order
	homes      map[string]string // user -> home view ID

	responseURLs map[string]responseTarget

	failures map[string][]failure
	down     bool
	drop     bool
	buckets  map[string]*bucket
	holds    map[string]*Hold

	conns     map[int]*conn
	connSeq   int
	hellos    int // connections that got a hello, ever
	tickets   map[string]bool
	pending   map[string]chan Ack
	acks      []Ack
	sockGroup sync.WaitGroup
}

// New starts a fake Slack on 127.0.0.1. It is closed by t.Cleanup.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	cfg := config{
		botToken:       DefaultBotToken,
		appToken:       DefaultAppToken,
		clock:          realClock{},
		allowedRejects: map[string]bool{},
		ackTimeout:     3 * time.Second,
		triggerTTL:     3 * time.Second,
		pingInterval:   10 * time.Second,
		users:          map[string]string{},
		channels:       map[string]string{},
		groups:         map[string][]string{},
	}
	for _, o := range opts {
		o(&cfg)
	}
	s := &Server{
		t:        t,
		cfg:      cfg,
		changed:  make(chan struct{}),
		messages: map[string][]*message{},
		dms:      map[string]string{},
		triggers: map[string]*trigger{},
		views:    map[string]*viewState{},
		homes:    map[string]string{},
		failures: map[string][]failure{},
		buckets:  map[string]*bucket{},
		conns:    map[int]*conn{},
		tickets:  map[string]bool{},
		pending:  map[string]chan Ack{},

		responseURLs: map[string]responseTarget{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/api/", s.serveAPI)
	mux.HandleFunc("/link/", s.serveSocket)
	mux.HandleFunc("/response/", s.serveResponseURL)
	s.ts = httptest.NewServer(mux) // httptest listens on 127.0.0.1
	t.Cleanup(s.Close)
	return s
}

// URL is the base URL of the fake, like http://127.0.0.1:port.
func (s *Server) URL() string { return s.ts.URL }

// APIURL is the Web API base URL, ending in /api/, for slack.OptionAPIURL.
func (s *Server) APIURL() string { return s.ts.URL + "/api/" }

// BotToken is the xoxb- token the Web API accepts.
func (s *Server) BotToken() string { return s.cfg.botToken }

// AppToken is the xapp- token apps.connections.open accepts.
func (s *Server) AppToken() string { return s.cfg.appToken }

// Now is the fake's current time (the injected clock).
func (s *Server) Now() time.Time { return s.cfg.clock.Now() }

// Close closes all sockets and the HTTP server. It is idempotent and runs
// automatically at test cleanup.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	conns := make([]*conn, 0, len(s.conns))
	for _, c := range s.conns {
		conns = append(conns, c)
	}
	s.notifyLocked()
	s.mu.Unlock()
	s.releaseHolds()
	for _, c := range conns {
		c.close()
	}
	s.ts.Close()
	s.sockGroup.Wait()
}

// notifyLocked wakes every waiter. s.mu must be held.
func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// waitFor blocks until cond, evaluated with s.mu held, is true, or ctx ends.
func (s *Server) waitFor(ctx context.Context, cond func() bool) error {
	for {
		s.mu.Lock()
		if cond() {
			s.mu.Unlock()
			return nil
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// userName returns the display name of a user ID.
func (s *Server) userName(id string) string {
	if n, ok := s.cfg.users[id]; ok {
		return n
	}
	if id == BotUserID {
		return BotName
	}
	return "user." + lower(id)
}

// channelName returns the name of a channel ID ("directmessage" for DMs,
// like Slack).
func (s *Server) channelName(id string) string {
	if n, ok := s.cfg.channels[id]; ok {
		return n
	}
	if len(id) > 0 && id[0] == 'D' {
		return "directmessage"
	}
	return "channel." + lower(id)
}
