package service

import (
	"context"
	"sync"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
)

var _ hitl.FloodGuard = (*Guard)(nil)

// Guard bounds what one principal may cost: rate limits, concurrent
// streams, and the aggregated audit of refusals.
type Guard struct {
	clock    hitl.Clock
	access   access.Access
	events   EventAppender // where refusals are audited
	notifier hitl.Notifier
	// limits are the per-principal rate limits beside creation's;
	// streams bounds each principal's concurrent streams; refusals
	// aggregates the audit of refusals.
	limits   map[hitl.Limit]hitl.Limiter
	streams  streams
	refusals refusals
}

// EventAppender appends an event to the log.
type EventAppender interface {
	AppendEvent(ctx context.Context, ev *hitl.Event) error
}

// GuardConfig is what the Guard uses (ServiceConfig says what each field
// does); Store is where refusals are audited.
type GuardConfig struct {
	Store      EventAppender
	Clock      hitl.Clock
	Access     access.Access
	Notifier   hitl.Notifier
	Limits     map[hitl.Limit]hitl.Limiter
	MaxStreams int
}

// NewGuard returns the guard.
func NewGuard(cfg GuardConfig) *Guard {
	if cfg.Clock == nil {
		cfg.Clock = hitl.SystemClock{}
	}
	return &Guard{clock: cfg.Clock, access: cfg.Access, events: cfg.Store, notifier: cfg.Notifier, limits: cfg.Limits,
		streams: streams{max: cfg.MaxStreams}}
}

// streamRetry is what a refused stream is told to wait. A refusal costs
// the service a map lookup, so retrying soon is cheap.
const streamRetry = time.Second

// streams counts each principal's open streams.
type streams struct {
	max  int // 0: no bound
	mu   sync.Mutex
	open map[string]int
}

// OpenStream implements FloodGuard.
func (s *Guard) OpenStream(ctx context.Context) (func(), error) {
	if s.streams.max <= 0 {
		return func() {}, nil
	}
	p := auth.PrincipalFrom(ctx)
	st := &s.streams
	st.mu.Lock()
	if st.open[p.ID] >= st.max {
		st.mu.Unlock()
		e := fault.Errorf(fault.ETOOMANYSTREAMS, "%s holds %d streams and long polls at once, the most one principal may (max_streams): close one, or retry in %s", p.ID, st.max, streamRetry)
		e.RetryAfter = streamRetry
		return nil, s.refused(ctx, p, auth.ActionRead, &hitl.Question{}, e)
	}
	if st.open == nil {
		st.open = map[string]int{}
	}
	st.open[p.ID]++
	st.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			st.mu.Lock()
			defer st.mu.Unlock()
			if st.open[p.ID]--; st.open[p.ID] <= 0 {
				delete(st.open, p.ID)
			}
		})
	}, nil
}

// Throttle implements FloodGuard.
func (s *Guard) Throttle(ctx context.Context, l hitl.Limit) error {
	lim := s.limits[l]
	if lim == nil {
		return nil
	}
	p := auth.PrincipalFrom(ctx)
	d := lim.Allow(p.ID, "")
	if d <= 0 {
		return nil
	}
	e := fault.Errorf(fault.ERATELIMITED, "%s sends %s requests too fast (rate_limits.%s_per_minute): retry in %s", p.ID, l, l, d.Round(time.Millisecond))
	e.RetryAfter = d
	return s.refused(ctx, p, auth.Action(l), &hitl.Question{}, e)
}

// Audit aggregation: refusals are what a flood is made of, so they are
// recorded per principal, action and code in one-minute windows: the
// first auditDetailed of a window each as an event of their own (who,
// what, which question or run, why), the rest only counted; the count
// rides on the next window's first event of the same kind (Event.Count),
// or on a summary event (FlushRefusals) when the kind stays quiet. A flood of any size
// adds at most auditDetailed+1 events per principal, action and code a
// minute.
const (
	auditWindow   = time.Minute
	auditDetailed = 5
)

type tallyKey struct {
	actor string
	act   auth.Action
	code  string
}

type tally struct {
	window     time.Time   // start of the window counted
	written    int         // events written in it
	suppressed int         // refusals not written in it
	last       *hitl.Event // the last refusal written, for a summary
}

type refusals struct {
	mu    sync.Mutex
	seen  map[tallyKey]*tally
	swept time.Time
}

// tallied decides whether refusal ev is written: it returns the events to
// append (ev, perhaps with a count of what earlier windows suppressed,
// and summaries of quiet kinds), none when ev is only counted.
func (r *refusals) tallied(ev *hitl.Event, code string) []*hitl.Event {
	window := ev.At.Truncate(auditWindow)
	k := tallyKey{ev.Actor, ev.Action, code}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen == nil {
		r.seen = map[tallyKey]*tally{}
	}
	out := r.sweep(window, k)
	t := r.seen[k]
	if t == nil {
		t = &tally{window: window}
		r.seen[k] = t
	}
	if t.window.Before(window) {
		if t.suppressed > 0 {
			ev.Count = 1 + t.suppressed
		}
		*t = tally{window: window}
	}
	if t.written >= auditDetailed {
		t.suppressed++
		return out
	}
	t.written++
	c := *ev
	t.last = &c
	return append(out, ev)
}

// sweep forgets the tallies of windows before window (but keep's own), at
// most once a window, and returns the summaries of what they suppressed.
func (r *refusals) sweep(window time.Time, keep tallyKey) []*hitl.Event {
	if window.Sub(r.swept) < auditWindow {
		return nil
	}
	r.swept = window
	var out []*hitl.Event
	for k, t := range r.seen {
		if k != keep && t.window.Before(window) {
			if t.suppressed > 0 {
				out = append(out, summary(t))
			}
			delete(r.seen, k)
		}
	}
	return out
}

// FlushRefusals writes the summaries of refusals that windows now past
// suppressed and that no later refusal carried: the sweeper calls it, so
// a flood's count reaches the audit log within a minute or so of its
// end. It writes nothing when there is nothing to count.
func (s *Guard) FlushRefusals(ctx context.Context) error {
	window := s.clock.Now().Truncate(auditWindow)
	s.refusals.mu.Lock()
	evs := s.refusals.sweep(window, tallyKey{})
	s.refusals.mu.Unlock()
	for _, ev := range evs {
		if err := s.events.AppendEvent(context.WithoutCancel(ctx), ev); err != nil {
			return err
		}
		s.notifier.Publish("")
	}
	return nil
}

// summary is the event that records the refusals a window suppressed when
// nothing of their kind followed.
func summary(t *tally) *hitl.Event {
	ev := *t.last
	ev.Seq, ev.QuestionID, ev.RunID = 0, "", ""
	ev.At = t.window.Add(auditWindow)
	ev.Count = t.suppressed
	ev.Reason = "more refusals like this one, not recorded one by one: " + ev.Reason
	return &ev
}

// refused audits a refusal and returns err, the refusal. A flood of them
// is counted, not recorded one by one (refusals.tallied).
func (s *Guard) refused(ctx context.Context, p auth.Principal, act auth.Action, q *hitl.Question, err error) error {
	ev := &hitl.Event{Type: hitl.EventRefused, QuestionID: q.ID, RunID: q.RunID, At: s.clock.Now(), Actor: p.ID,
		Asker: q.Asker, Action: act, Reason: fault.Message(err), Edge: auth.EdgeFrom(ctx)}
	for _, ev := range s.refusals.tallied(ev, fault.Code(err)) {
		if aerr := s.events.AppendEvent(context.WithoutCancel(ctx), ev); aerr == nil {
			s.notifier.Publish(ev.QuestionID)
		}
	}
	return err
}
