package service

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/observe"
)

// alertLog is the key alert events are indexed under in the store's
// events-by-run index, so that the active alerts are read back by that
// index at start. No run can have it: '#' is not allowed in run ids.
const alertLog = "#alerts"

// Alerts watches the three alerts (docs/operations.md#metrics-stats-and-alerts): it follows the event log for
// settled questions (a window of the last AlertWindow, by type) and for
// the alert changes other replicas logged, looks at
// the oldest pending blocking question and the service's failed
// creations, and records each start and each clear once, as an
// EventAlert on the durable log (the Slack bot posts it to the alert
// channel). Check runs it; the sweeper calls Check on its schedule.
type Alerts struct {
	cfg observe.AlertConfig
	svc *Observation

	mu     sync.Mutex
	cursor uint64              // the last event read
	filled bool                // the window was read from the store
	window []settled           // settled questions, in the order seen
	seen   map[string]struct{} // ids in window
	tally  map[hitl.QuestionType]hitl.Tally
	active map[string]hitl.Alert
}

type settled struct {
	id       string
	typ      hitl.QuestionType
	timedOut bool
	at       int64 // unix nanoseconds
}

// NewAlerts returns the alerts of cfg over s: the active alerts are read
// back from the log (by its index), and the first Check fills the window
// with the questions settled in the last AlertWindow (by the settle-time
// index): starting reads no clock. Stats shows its active alerts from
// then on.
func (s *Observation) NewAlerts(ctx context.Context, cfg observe.AlertConfig) (*Alerts, error) {
	a := &Alerts{cfg: cfg.WithDefaults(), svc: s, seen: map[string]struct{}{},
		tally: map[hitl.QuestionType]hitl.Tally{}, active: map[string]hitl.Alert{}}
	seq, err := s.store.LastSeq(ctx)
	if err != nil {
		return nil, err
	}
	a.cursor = seq
	for after := uint64(0); ; {
		evs, through, err := s.store.RunEvents(ctx, alertLog, after, 256)
		if err != nil {
			return nil, err
		}
		for _, ev := range evs {
			applyAlert(a.active, ev)
		}
		if len(evs) < 256 {
			break
		}
		after = through
	}
	s.alerts.Store(a)
	return a, nil
}

// applyAlert folds alert event ev into active, the alerts active before
// it, and reports whether ev changed them. A start of an alert already
// active, or a clear of one that is not, changes nothing: two replicas
// that saw the same change at once both logged it, and the later one is
// a repeat that nobody posts.
func applyAlert(active map[string]hitl.Alert, ev *hitl.Event) bool {
	if ev.Type != hitl.EventAlert || ev.Alert == nil {
		return false
	}
	_, on := active[ev.Alert.Name]
	switch {
	case ev.Alert.State == hitl.AlertStarted && !on:
		active[ev.Alert.Name] = *ev.Alert
		return true
	case ev.Alert.State != hitl.AlertStarted && on:
		delete(active, ev.Alert.Name)
		return true
	}
	return false
}

// AlertChanged reports whether alert event ev changed the alerts when it
// was logged (applyAlert), read from the alert log up to it: a repeat
// logged by a second replica did not, and is not posted. An event no
// longer in the log (pruned) counts as a change.
func (s *Observation) AlertChanged(ctx context.Context, ev *hitl.Event) (bool, error) {
	active := map[string]hitl.Alert{}
	for after := uint64(0); ; {
		evs, through, err := s.store.RunEvents(ctx, alertLog, after, 256)
		if err != nil {
			return false, err
		}
		for _, e := range evs {
			if e.Seq >= ev.Seq {
				return e.Seq != ev.Seq || applyAlert(active, e), nil
			}
			applyAlert(active, e)
		}
		if len(evs) < 256 {
			return true, nil
		}
		after = through
	}
}

// fill adds the questions settled since since to the window (those the
// log also shows are observed once).
func (a *Alerts) fill(ctx context.Context, since time.Time) error {
	return a.svc.eachSettled(ctx, since, a.observe)
}

// observe adds a settled question to the window (once).
func (a *Alerts) observe(q *hitl.Question) {
	if q.Pending() || q.RespondedAt == nil {
		return
	}
	if _, ok := a.seen[q.ID]; ok {
		return
	}
	e := settled{id: q.ID, typ: q.Type, timedOut: q.Status == hitl.StatusTimeout, at: q.RespondedAt.UnixNano()}
	a.seen[q.ID] = struct{}{}
	a.window = append(a.window, e)
	t := a.tally[e.typ]
	t.Settled++
	if e.timedOut {
		t.TimedOut++
	}
	a.tally[e.typ] = t
}

// expire drops what settled before the window.
func (a *Alerts) expire(before int64) {
	n := 0
	for n < len(a.window) && a.window[n].at < before {
		e := a.window[n]
		delete(a.seen, e.id)
		t := a.tally[e.typ]
		t.Settled--
		if e.timedOut {
			t.TimedOut--
		}
		if t.Settled <= 0 {
			delete(a.tally, e.typ)
		} else {
			a.tally[e.typ] = t
		}
		n++
	}
	a.window = a.window[n:]
}

// follow reads the events committed since the last check and adds the
// questions they settled since since to the window.
func (a *Alerts) follow(ctx context.Context, since time.Time) error {
	for {
		evs, err := a.svc.store.Events(ctx, a.cursor, eventBatch)
		if err != nil {
			return err
		}
		for _, ev := range evs {
			a.cursor = ev.Seq
			if applyAlert(a.active, ev) {
				continue // logged by another replica: its change holds here too
			}
			if !settles(ev.Type) {
				continue
			}
			q, err := a.svc.store.Question(ctx, ev.QuestionID)
			switch fault.Code(err) {
			case "":
				if q.RespondedAt != nil && !q.RespondedAt.Before(since) {
					a.observe(q)
				}
			case fault.ENOTFOUND: // pruned since
			default:
				return err
			}
		}
		if len(evs) < eventBatch {
			return nil
		}
	}
}

// eventBatch is how many events a reader of the log reads at once.
const eventBatch = 256

// settles reports whether an event of type t settles a question.
func settles(t hitl.EventType) bool {
	return t == hitl.EventQuestionAnswered || t == hitl.EventQuestionTimeout || t == hitl.EventQuestionCancelled
}

// Check evaluates the alerts now and records every change: each start
// and each clear is one EventAlert on the log. It returns the changes.
func (a *Alerts) Check(ctx context.Context) ([]hitl.Alert, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.svc.clock.Now()
	if !a.filled {
		if err := a.fill(ctx, now.Add(-observe.AlertWindow)); err != nil {
			return nil, err
		}
		a.filled = true
	}
	if err := a.follow(ctx, now.Add(-observe.AlertWindow)); err != nil {
		return nil, err
	}
	a.expire(now.Add(-observe.AlertWindow).UnixNano())
	in := observe.AlertInputs{Now: now, Settled: make(map[hitl.QuestionType]hitl.Tally, len(a.tally)),
		CreationErrors: a.svc.creationFailures(now.Add(-observe.AlertWindow))}
	for typ, t := range a.tally {
		in.Settled[typ] = t
	}
	page, err := a.svc.store.Questions(ctx, hitl.QuestionFilter{Type: hitl.Blocking, Status: hitl.StatusPending, Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(page.Questions) > 0 {
		in.OldestBlocking = page.Questions[0]
	}
	if in.WebhookFailures, err = a.webhookFailures(ctx, now.Add(-observe.AlertWindow)); err != nil {
		return nil, err
	}
	changes := a.cfg.Evaluate(in, a.active)
	for i := range changes {
		c := changes[i]
		ev := &hitl.Event{Type: hitl.EventAlert, RunID: alertLog, At: now, Actor: auth.ActorSystem, Alert: &c, Reason: c.Message}
		if err := a.svc.store.AppendEvent(ctx, ev); err != nil {
			return changes[:i], err
		}
		applyAlert(a.active, ev)
	}
	if len(changes) > 0 {
		a.svc.notifier.Publish("")
	}
	return changes, nil
}

// Active returns the alerts active now, in name order.
func (a *Alerts) Active() []hitl.Alert {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]hitl.Alert, 0, len(a.active))
	for _, al := range a.active {
		out = append(out, al)
	}
	slices.SortFunc(out, func(x, y hitl.Alert) int { return strings.Compare(x.Name, y.Name) })
	return out
}

// Names lists the alerts Check may raise, for exporters that show every
// alert as active or not: one timeout-rate alert per question type and
// the other two.
func (a *Alerts) Names() []string {
	out := make([]string, 0, len(hitl.QuestionTypes)+3)
	for _, t := range hitl.QuestionTypes {
		out = append(out, observe.AlertTimeoutRate+":"+string(t))
	}
	return append(out, observe.AlertCreationErrors, observe.AlertUnansweredBlocking, observe.AlertWebhookFailures)
}

// Channel is where alert changes are posted ("" for nowhere).
func (a *Alerts) Channel() string { return a.cfg.Channel }

// webhookFailures counts the webhook deliveries that failed since since,
// among the most recent failed ones (a page: the alert needs one).
func (a *Alerts) webhookFailures(ctx context.Context, since time.Time) (int, error) {
	failed, err := a.svc.store.WebhookDeliveries(ctx, hitl.WebhookFilter{Status: hitl.WebhookFailed, Limit: hitl.MaxPageSize})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, d := range failed {
		if d.SettledAt != nil && !d.SettledAt.Before(since) {
			n++
		}
	}
	return n, nil
}
