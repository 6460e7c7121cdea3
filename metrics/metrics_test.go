package metrics_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/metrics"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/observe"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/steer"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	agent = auth.WithPrincipal(context.Background(), auth.TokenPrincipal("ci", nil, ""))
	ops   = auth.WithPrincipal(context.Background(), auth.TokenPrincipal("ops", []auth.Scope{auth.ScopeAnswer}, ""))
)

// world is a service over a memory store with its metrics.
type world struct {
	st      *memstore.Store
	clock   *clocktest.Clock
	svc     *service.Service
	m       *metrics.Metrics
	streams int
}

func newWorld(t testing.TB, st *memstore.Store) *world {
	t.Helper()
	w := &world{st: st, clock: clocktest.New(time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC))}
	w.svc = service.NewService(st, service.ServiceConfig{Notifier: notify.New(), Clock: w.clock})
	alerts, err := w.svc.Observation.NewAlerts(context.Background(), observe.AlertConfig{})
	require.NoError(t, err)
	w.m = metrics.New(metrics.Config{Source: sourceOf(w.svc), Alerts: alerts,
		OutboxDepth: func() float64 { return 7 }, EventStreams: func() float64 { return float64(w.streams) }})
	require.NoError(t, w.m.Init(context.Background()))
	return w
}

func (w *world) ask(t testing.TB, typ hitl.QuestionType) *hitl.Question {
	t.Helper()
	q, _, err := w.svc.Questions.Create(agent, "run-1", hitl.NewQuestion{Question: "Go on?", Type: typ})
	require.NoError(t, err)
	return q
}

// scrape syncs the metrics with the log, GETs them as Prometheus would
// and parses the answer with Prometheus' own text parser.
func scrape(t testing.TB, m *metrics.Metrics) map[string]*dto.MetricFamily {
	t.Helper()
	require.NoError(t, m.Sync(context.Background()))
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(rec.Body)
	require.NoError(t, err, "the scrape parses as Prometheus text")
	return fams
}

// value is the value of the series of family name with labels (a
// counter's, a gauge's, or a histogram's sample count).
func value(t testing.TB, fams map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	t.Helper()
	f, ok := fams[name]
	require.True(t, ok, "no metric %s", name)
	for _, m := range f.GetMetric() {
		got := map[string]string{}
		for _, l := range m.GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		match := len(got) == len(labels)/2
		for i := 0; i+1 < len(labels); i += 2 {
			match = match && got[labels[i]] == labels[i+1]
		}
		if !match {
			continue
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		}
	}
	t.Fatalf("no series %s%v", name, labels)
	return 0
}

// TestScrapeCountsWhatTheLogCommitted drives the lifecycle and reads
// every metric back from a scrape parsed by Prometheus' parser.
func TestScrapeCountsWhatTheLogCommitted(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, memstore.New())

	fams := scrape(t, w.m)
	assert.Zero(t, value(t, fams, "hitl_questions_created_total", "type", "blocking"), "every type shows at 0")
	assert.Zero(t, value(t, fams, "hitl_questions_pending", "type", "approval"))

	b1, b2, b3 := w.ask(t, hitl.Blocking), w.ask(t, hitl.Blocking), w.ask(t, hitl.Blocking)
	a1 := w.ask(t, hitl.Approval)
	w.ask(t, hitl.Approval)
	w.clock.Add(90 * time.Second)
	_, err := w.svc.Questions.Answer(ops, b1.ID, hitl.Response{Value: "yes"})
	require.NoError(t, err)
	_, err = w.svc.Questions.Cancel(agent, b2.ID, "not needed")
	require.NoError(t, err)
	w.clock.Add(16 * time.Minute) // the approvals time out (15 min); the blocking ones wait 30
	_, err = w.svc.Questions.SweepExpired(ctx)
	require.NoError(t, err)
	_, err = w.svc.Questions.Answer(ops, a1.ID, hitl.Response{Value: "approve"})
	assert.Equal(t, fault.ECONFLICT, fault.Code(err), "timed out already")

	// Events the other edges write: a control RESULT of each kind, policy
	// decisions, a reminder and an escalation.
	for _, ev := range []*hitl.Event{
		{Type: hitl.EventControl, RunID: "run-1", Control: &steer.ControlMessage{Type: steer.MessageResult, Command: steer.CommandPause, Payload: steer.ControlPayload{Status: steer.ResultSuccess}}},
		{Type: hitl.EventControl, RunID: "run-1", Control: &steer.ControlMessage{Type: steer.MessageAck, Command: steer.CommandPause}},
		{Type: hitl.EventControl, RunID: "run-2", Control: &steer.ControlMessage{Type: steer.MessageResult, Command: steer.CommandResume, Payload: steer.ControlPayload{Status: steer.ResultFailure, Code: steer.CodeInvalidState}}},
		{Type: hitl.EventPolicyDecision, Action: "allow"},
		{Type: hitl.EventPolicyDecision, Action: "deny"},
		{Type: hitl.EventPolicyDecision, Action: "learned"},
		{Type: "question_reminded", QuestionID: b3.ID, RunID: "run-1"},
		{Type: "question_escalated", QuestionID: b3.ID, RunID: "run-1"},
	} {
		ev.At = w.clock.Now()
		require.NoError(t, w.st.AppendEvent(ctx, ev))
	}
	w.m.SlackAPIError("chat.postMessage", "ratelimited")
	w.m.SlackAPIError("chat.postMessage", "ratelimited")
	w.m.SlackAPIError("chat.update", "channel_not_found")
	w.streams = 3

	fams = scrape(t, w.m)
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"hitl_questions_created_total", []string{"type", "blocking"}, 3},
		{"hitl_questions_created_total", []string{"type", "approval"}, 2},
		{"hitl_questions_created_total", []string{"type", "error_recovery"}, 0},
		{"hitl_questions_settled_total", []string{"type", "blocking", "outcome", "answered"}, 1},
		{"hitl_questions_settled_total", []string{"type", "blocking", "outcome", "cancelled"}, 1},
		{"hitl_questions_settled_total", []string{"type", "approval", "outcome", "timeout"}, 2},
		{"hitl_question_answer_seconds", []string{"type", "blocking"}, 1},
		{"hitl_questions_pending", []string{"type", "blocking"}, 1},
		{"hitl_questions_pending", []string{"type", "approval"}, 0},
		{"hitl_reminders_sent_total", nil, 1},
		{"hitl_escalations_total", nil, 1},
		{"hitl_outbox_depth", nil, 7},
		{"hitl_event_streams", nil, 3},
		{"hitl_slack_api_errors_total", []string{"method", "chat.postMessage", "error", "ratelimited"}, 2},
		{"hitl_slack_api_errors_total", []string{"method", "chat.update", "error", "channel_not_found"}, 1},
		{"hitl_control_requests_total", []string{"command", "pause", "result", "success"}, 1},
		{"hitl_control_requests_total", []string{"command", "resume", "result", "invalid_state"}, 1},
		{"hitl_policy_decisions_total", []string{"effect", "allow"}, 1},
		{"hitl_policy_decisions_total", []string{"effect", "deny"}, 1},
		{"hitl_alert_active", []string{"alert", "unanswered_blocking"}, 0},
		{"hitl_alert_active", []string{"alert", "timeout_rate:approval"}, 0},
	} {
		assert.Equal(t, c.want, value(t, fams, c.name, c.labels...), "%s%v", c.name, c.labels)
	}
	h := fams["hitl_question_answer_seconds"].GetMetric()[0].GetHistogram()
	assert.InDelta(t, 90, h.GetSampleSum(), 0.001, "answered 90 s after it was asked")
	assert.Contains(t, fams, "go_goroutines", "Go runtime metrics as the library gives them")
	assert.Contains(t, fams, "process_cpu_seconds_total", "process metrics as the library gives them")
}

// TestPendingIsCountedOnceAtStart: a restart counts the pending
// questions through the store's index and goes on from the log.
func TestPendingIsCountedOnceAtStart(t *testing.T) {
	st := memstore.New()
	w := newWorld(t, st)
	for range 4 {
		w.ask(t, hitl.Blocking)
	}
	q := w.ask(t, hitl.ErrorRecovery)
	_, err := w.svc.Questions.Answer(ops, q.ID, hitl.Response{Value: "retry"})
	require.NoError(t, err)

	again := newWorld(t, st)
	fams := scrape(t, again.m)
	assert.Equal(t, 4.0, value(t, fams, "hitl_questions_pending", "type", "blocking"))
	assert.Zero(t, value(t, fams, "hitl_questions_pending", "type", "error_recovery"))
	assert.Zero(t, value(t, fams, "hitl_questions_created_total", "type", "blocking"), "counters count from the start of this process")

	again.ask(t, hitl.Blocking)
	fams = scrape(t, again.m)
	assert.Equal(t, 5.0, value(t, fams, "hitl_questions_pending", "type", "blocking"), "kept current from the log")
	assert.Equal(t, 1.0, value(t, fams, "hitl_questions_created_total", "type", "blocking"))
}

// TestAlertActiveIsExported: an alert the alerts started shows as 1.
func TestAlertActiveIsExported(t *testing.T) {
	st := memstore.New()
	w := newWorld(t, st)
	alerts, err := w.svc.Observation.NewAlerts(context.Background(), observe.AlertConfig{UnansweredBlocking: time.Minute})
	require.NoError(t, err)
	m := metrics.New(metrics.Config{Source: sourceOf(w.svc), Alerts: alerts})
	require.NoError(t, m.Init(context.Background()))
	w.ask(t, hitl.Blocking)
	w.clock.Add(2 * time.Minute)
	changes, err := alerts.Check(context.Background())
	require.NoError(t, err)
	require.Len(t, changes, 1)
	fams := scrape(t, m)
	assert.Equal(t, 1.0, value(t, fams, "hitl_alert_active", "alert", "unanswered_blocking"))
	assert.Equal(t, 0.0, value(t, fams, "hitl_alert_active", "alert", "creation_errors"))
}

// TestFollowWakesOnChanges: Start follows the log in the background and
// counts a change without Sync (waiting on a condition, with a deadline).
func TestFollowWakesOnChanges(t *testing.T) {
	w := newWorld(t, memstore.New())
	require.NoError(t, w.m.Start(context.Background()))
	t.Cleanup(w.m.Close)
	w.ask(t, hitl.ErrorRecovery)
	assert.Eventually(t, func() bool {
		rec := httptest.NewRecorder()
		w.m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		p := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := p.TextToMetricFamilies(rec.Body)
		return err == nil && value(t, fams, "hitl_questions_created_total", "type", "error_recovery") == 1
	}, 5*time.Second, 5*time.Millisecond, "the follower counts the question without Sync")
}

// sourceOf is the metrics' part of svc, as the wiring fills it
// (cmd/hitl/adapters.go).
func sourceOf(svc *service.Service) metrics.Source {
	return metrics.Source{Log: svc.Log, Questions: svc.Questions, Pending: svc.Observation}
}
