package service

import (
	"context"
	"math"
	"slices"
	"sync/atomic"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/observe"
	"github.com/hitlbot/hitl/steer"
)

var _ observe.StatsService = (*Observation)(nil)

// Observation reads what the service did: stats, alerts, pending counts.
type Observation struct {
	store    ObservedStore
	clock    hitl.Clock
	access   access.Access
	notifier hitl.Notifier
	window   StatsWindow // the stats of every run from rollups (nil: from the questions)
	guard    gate
	failures failureCounter
	alerts   atomic.Pointer[Alerts] // the alerts stats show, when configured (alerts.go)
}

// ObservedStore is what Observation reads (and the alerts append): the
// questions, the event log, the failed webhook deliveries.
type ObservedStore interface {
	QuestionLister
	Question(ctx context.Context, id string) (*hitl.Question, error)
	SettledQuestions(ctx context.Context, since time.Time, limit int, cursor string) (hitl.QuestionPage, error)
	PendingByType(ctx context.Context) (counts map[hitl.QuestionType]int, seq uint64, err error)
	EventReader
	EventAppender
	WebhookDeliveries(ctx context.Context, f hitl.WebhookFilter) ([]hitl.WebhookDelivery, error)
}

// failureCounter is Questions as Observation calls them: how many
// creations failed since a time (an alert).
type failureCounter interface {
	creationFailures(since time.Time) int
}

// ObservationConfig is what Observation uses (ServiceConfig's StatsWindow
// is Window). Questions counts the failed creations.
type ObservationConfig struct {
	Store     ObservedStore
	Clock     hitl.Clock
	Access    access.Access
	Notifier  hitl.Notifier
	Window    StatsWindow
	Guard     *Guard
	Questions *Questions
}

// NewObservation returns the observation part.
func NewObservation(cfg ObservationConfig) *Observation {
	if cfg.Clock == nil {
		cfg.Clock = hitl.SystemClock{}
	}
	o := &Observation{store: cfg.Store, clock: cfg.Clock, access: cfg.Access, notifier: cfg.Notifier, window: cfg.Window, guard: cfg.Guard}
	if cfg.Questions != nil {
		o.failures = cfg.Questions
	}
	return o
}

// Stats implements StatsService. With a StatsWindow (hitl serve:
// observe.Windows), the stats of every run are read from the rollups, the
// window starting at its minute (docs/operations.md#how-exact-stats-are).
// Otherwise, and for one run, it reads the questions asked in the
// window by the creation-time index and those settled in it by the
// settle-time index (of one run: that run's questions by the run index),
// and the window's events from the first one in it (found by a binary
// search of the log): its cost grows with what happened in the window,
// not with the history stored.
func (s *Observation) Stats(ctx context.Context, sq observe.StatsQuery) (*observe.Stats, error) {
	p := auth.PrincipalFrom(ctx)
	if err := s.access.Authorize(p, auth.ActionStats, nil); err != nil {
		return nil, s.guard.refused(ctx, p, auth.ActionStats, &hitl.Question{RunID: sq.Run}, err)
	}
	if sq.Since == 0 {
		sq.Since = observe.DefaultStatsSince
	}
	if sq.Since < 0 {
		return nil, fault.Errorf(fault.EINVALID, "since must be a positive duration, like 24h or 90m")
	}
	if sq.Run != "" {
		if err := steer.ValidateRunID(sq.Run); err != nil {
			return nil, err
		}
	}
	since := s.clock.Now().Add(-sq.Since)
	if s.window != nil && sq.Run == "" {
		st, err := s.window.WindowStats(ctx, since)
		if err != nil {
			return nil, err
		}
		return s.withAlerts(st, st.Since, sq.Run), nil
	}
	var t statsTally
	t.runs = map[string]bool{}
	var err error
	if sq.Run != "" {
		err = s.tallyRun(ctx, sq.Run, since, &t)
	} else {
		err = s.tallyAll(ctx, since, &t)
	}
	if err != nil {
		return nil, err
	}
	if err := s.tallyEvents(ctx, sq.Run, since, &t); err != nil {
		return nil, err
	}
	return s.withAlerts(t.stats(), since, sq.Run), nil
}

// withAlerts sets st's window and the alerts active now.
func (s *Observation) withAlerts(st *observe.Stats, since time.Time, run string) *observe.Stats {
	st.Since, st.Run = since, run
	st.Alerts = []hitl.Alert{}
	if a := s.alerts.Load(); a != nil {
		st.Alerts = a.Active()
	}
	return st
}

// statsTally accumulates a window's questions and events.
type statsTally struct {
	asked                         int
	runs                          map[string]bool
	answered, timedOut, cancelled int
	answerSeconds                 []float64
	settledByType                 map[hitl.QuestionType]hitl.Tally
	reminders, escalations        int
}

func (t *statsTally) ask(q *hitl.Question) {
	t.asked++
	t.runs[q.RunID] = true
}

func (t *statsTally) settle(q *hitl.Question) {
	if t.settledByType == nil {
		t.settledByType = map[hitl.QuestionType]hitl.Tally{}
	}
	by := t.settledByType[q.Type]
	by.Settled++
	switch q.Status {
	case hitl.StatusAnswered:
		t.answered++
		t.answerSeconds = append(t.answerSeconds, q.RespondedAt.Sub(q.CreatedAt).Seconds())
	case hitl.StatusTimeout:
		t.timedOut++
		by.TimedOut++
	case hitl.StatusCancelled:
		t.cancelled++
	}
	t.settledByType[q.Type] = by
}

func (t *statsTally) stats() *observe.Stats {
	st := &observe.Stats{Asked: t.asked, Answered: t.answered, TimedOut: t.timedOut, Cancelled: t.cancelled,
		RemindersSent: t.reminders, Escalations: t.escalations, TimeoutRateByType: map[hitl.QuestionType]float64{}}
	if n := len(t.answerSeconds); n > 0 {
		slices.Sort(t.answerSeconds)
		sum := 0.0
		for _, v := range t.answerSeconds {
			sum += v
		}
		st.AvgTimeToAnswerSeconds = round3(sum / float64(n))
		st.P50TimeToAnswerSeconds = round3(percentile(t.answerSeconds, 0.5))
		st.P90TimeToAnswerSeconds = round3(percentile(t.answerSeconds, 0.9))
	}
	for typ, by := range t.settledByType {
		st.TimeoutRateByType[typ] = round3(float64(by.TimedOut) / float64(by.Settled))
	}
	if len(t.runs) > 0 {
		st.QuestionsPerRun = round3(float64(t.asked) / float64(len(t.runs)))
	}
	if d := t.answered + t.timedOut; d > 0 {
		st.ResponseRate = round3(float64(t.answered) / float64(d))
	}
	return st
}

// percentile is the nearest-rank percentile of sorted values.
func percentile(sorted []float64, p float64) float64 {
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(i, 0)]
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }
