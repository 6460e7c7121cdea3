// Package metrics exports hitl's Prometheus metrics. Counters are fed from
// the durable event log (read once per change, like the Slack outbox), so
// they count what was committed; the pending gauge is counted once at
// start through an index and kept current from the log; the event
// streams and the alerts are read at scrape time from memory, the outbox
// depth from the store (its cost grows with the deliveries queued, normally
// none). A scrape costs the same however many questions are stored.
package metrics

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/notify"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Source is what the metrics read: the event log, the questions it
// names, and the pending counts by type.
type Source struct {
	Log       hitl.EventLog
	Questions interface {
		Question(ctx context.Context, id string) (*hitl.Question, error)
	}
	Pending interface {
		PendingByType(ctx context.Context) (map[hitl.QuestionType]int, uint64, error)
	}
}

// Config configures Metrics. Source is required; nil funcs export 0.
type Config struct {
	Source Source
	// Alerts are exported as hitl_alert_active (nil: none configured).
	Alerts Alerts
	// OutboxDepth and EventStreams are read at each scrape (NaN: could
	// not be read).
	OutboxDepth  func() float64
	EventStreams func() float64
	Logger       *slog.Logger
	// RetryAfter is how long the reader waits after a failed read
	// (default 1 s).
	RetryAfter time.Duration
}

// AnswerBuckets are the buckets of hitl_question_answer_seconds: from 5
// seconds to a day.
var AnswerBuckets = []float64{5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400}

// Metrics is the registry of hitl's metrics and the reader that keeps
// them current.
type Metrics struct {
	cfg Config
	reg *prometheus.Registry
	log *slog.Logger

	created       *prometheus.CounterVec
	settled       *prometheus.CounterVec
	answerSeconds *prometheus.HistogramVec
	pending       *prometheus.GaugeVec
	reminders     prometheus.Counter
	escalations   prometheus.Counter
	slackErrors   *prometheus.CounterVec
	control       *prometheus.CounterVec
	policy        *prometheus.CounterVec
	// webhookFailures counts deliveries given up, in this process.
	webhookFailures *prometheus.CounterVec

	mu     sync.Mutex // the reader's position
	cursor uint64

	cancel context.CancelFunc
	done   chan struct{}
}

// reader is the principal the metrics read the log as: every event,
// refusals and policy decisions included.
var reader = auth.Principal{ID: "metrics", Scopes: []auth.Scope{auth.ScopeAdmin}}

// New returns the metrics over cfg.Source, registered with the process
// and Go runtime collectors. Start initialises and follows the log.
func New(cfg Config) *Metrics {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.RetryAfter <= 0 {
		cfg.RetryAfter = time.Second
	}
	m := &Metrics{cfg: cfg, reg: prometheus.NewRegistry(), log: cfg.Logger.With("component", "metrics")}
	m.created = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hitl_questions_created_total",
		Help: "Questions asked, by question type."}, []string{"type"})
	m.settled = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hitl_questions_settled_total",
		Help: "Questions settled, by question type and outcome (answered, timeout, cancelled)."}, []string{"type", "outcome"})
	m.answerSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "hitl_question_answer_seconds",
		Help: "Time from asking to the answer, by question type.", Buckets: AnswerBuckets}, []string{"type"})
	m.pending = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "hitl_questions_pending",
		Help: "Questions waiting for an answer, by question type."}, []string{"type"})
	m.reminders = prometheus.NewCounter(prometheus.CounterOpts{Name: "hitl_reminders_sent_total",
		Help: "Reminders sent about questions nobody answered yet."})
	m.escalations = prometheus.NewCounter(prometheus.CounterOpts{Name: "hitl_escalations_total",
		Help: "Questions escalated to more people."})
	m.slackErrors = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hitl_slack_api_errors_total",
		Help: "Slack Web API calls that failed, by method and error (ratelimited for 429s)."}, []string{"method", "error"})
	m.control = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hitl_control_requests_total",
		Help: "loop:control requests answered, by command and result (success or the failure's code)."}, []string{"command", "result"})
	m.policy = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hitl_policy_decisions_total",
		Help: "Approval-policy decisions, by effect (allow, deny, ask)."}, []string{"effect"})
	m.webhookFailures = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hitl_webhook_failures_total",
		Help: "Webhook deliveries given up after the retry schedule, by target (an endpoint, or callback:HOST)."}, []string{"target"})
	m.reg.MustRegister(m.webhookFailures, m.created, m.settled, m.answerSeconds, m.pending, m.reminders, m.escalations,
		m.slackErrors, m.control, m.policy,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "hitl_outbox_depth",
			Help: "Slack deliveries queued in the outbox."}, orZero(cfg.OutboxDepth)),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "hitl_event_streams",
			Help: "SSE event streams open."}, orZero(cfg.EventStreams)),
		alertCollector{cfg.Alerts},
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	for _, t := range hitl.QuestionTypes { // every type shows, at 0 too
		m.created.WithLabelValues(string(t))
		m.pending.WithLabelValues(string(t))
	}
	return m
}

func orZero(f func() float64) func() float64 {
	if f == nil {
		return func() float64 { return 0 }
	}
	return f
}

// Handler serves the metrics in Prometheus' text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// Registry is the registry the metrics are in.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// SlackAPIError counts a failed Slack Web API call (the bot's hook).
func (m *Metrics) SlackAPIError(method, code string) {
	m.slackErrors.WithLabelValues(method, code).Inc()
}

// Init counts the pending questions by type and sets the position from
// which Sync and Start read the log: the counts and the position are of
// one moment, so no change is counted twice or missed.
func (m *Metrics) Init(ctx context.Context) error {
	counts, seq, err := m.cfg.Source.Pending.PendingByType(auth.WithPrincipal(ctx, reader))
	if err != nil {
		return err
	}
	for t, n := range counts {
		m.pending.WithLabelValues(string(t)).Set(float64(n))
	}
	m.mu.Lock()
	m.cursor = seq
	m.mu.Unlock()
	return nil
}

// Start runs Init, then follows the log in the background until Close.
func (m *Metrics) Start(ctx context.Context) error {
	if err := m.Init(ctx); err != nil {
		return err
	}
	ctx, m.cancel = context.WithCancel(auth.WithPrincipal(context.WithoutCancel(ctx), reader))
	m.done = make(chan struct{})
	go m.follow(ctx)
	return nil
}

// Close stops following the log.
func (m *Metrics) Close() {
	if m.cancel != nil {
		m.cancel()
		<-m.done
	}
}

func (m *Metrics) follow(ctx context.Context) {
	defer close(m.done)
	notify.Follow(ctx, m.cfg.Source.Log.Changed, m.readOnce, func(err error) time.Duration {
		m.log.Error("metrics: reading the event log failed", "err", err)
		return m.cfg.RetryAfter
	})
}

// Sync reads the log to its end now (tests, and a scrape that must see
// what was just committed).
func (m *Metrics) Sync(ctx context.Context) error {
	ctx = auth.WithPrincipal(ctx, reader)
	for {
		n, err := m.readOnce(ctx)
		if err != nil || n == 0 {
			return err
		}
	}
}

// readOnce counts the next page of events and reports how many it read.
func (m *Metrics) readOnce(ctx context.Context) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	evs, last, err := m.cfg.Source.Log.Events(ctx, m.cursor, 256)
	if err != nil || last == m.cursor {
		return 0, err
	}
	start := m.cursor
	for _, ev := range evs {
		if err := m.count(ctx, ev); err != nil {
			return int(m.cursor - start), err // counted up to the one before: never twice
		}
		m.cursor = ev.Seq
	}
	n := int(last - start)
	m.cursor = last
	return n, nil
}

// WebhookFailed counts a webhook delivery given up (the webhook worker's
// hook), by target (an endpoint, or callback:HOST).
func (m *Metrics) WebhookFailed(target string) {
	m.webhookFailures.WithLabelValues(target).Inc()
}
