// Package observe owns observation: the stats of a window (hitl stats,
// GET /api/stats) computed from the hourly and per-minute rollups the
// stores keep with the event log (hitl.Rollup), so that a window costs
// what its hours cost, not what its questions do.
//
// A window runs from since to now. Its whole hours are read from hour
// rollups (the last one, the current hour, holds everything so far), the
// whole minutes of its first, partial hour from minute rollups, and its
// first partial minute exactly from the questions and events of that
// minute: every count is exact. The average time to answer is exact (a
// sum); the percentiles come from the merged sketch of the answer times
// (internal/sketch): exact up to 64 answers in the window, else within 1%
// of the exact nearest-rank percentile
// (docs/operations.md#how-exact-stats-are).
package observe

import (
	"context"
	"math"
	"time"

	"github.com/hitlbot/hitl"
)

// Store is what a window is read from: the rollups, and the settled
// questions and events of its ragged first minute.
type Store interface {
	hitl.RollupStore
	SettledQuestions(ctx context.Context, since time.Time, limit int, cursor string) (hitl.QuestionPage, error)
	Events(ctx context.Context, after uint64, limit int) ([]*hitl.Event, error)
	LastSeq(ctx context.Context) (uint64, error)
}

// Windows computes windows' stats over a store; it implements
// hitl.StatsWindow.
type Windows struct {
	store Store
}

// New returns the stats windows of st.
func New(st Store) *Windows { return &Windows{store: st} }

var _ hitl.StatsWindow = (*Windows)(nil)

// edgePage is how many questions or events a read of the ragged minute
// takes at a time.
const edgePage = 64

// WindowStats implements hitl.StatsWindow: the stats of every run from
// since to now (Alerts and Since are the caller's).
func (w *Windows) WindowStats(ctx context.Context, since time.Time) (*hitl.Stats, error) {
	minute := ceil(since, time.Minute)
	hour := ceil(since, time.Hour)
	var acc hitl.Rollup
	hours, err := w.store.Rollups(ctx, time.Hour, hour, time.Unix(1<<40, 0))
	if err != nil {
		return nil, err
	}
	minutes, err := w.store.Rollups(ctx, time.Minute, minute, hour)
	if err != nil {
		return nil, err
	}
	for _, r := range append(hours, minutes...) {
		merge(&acc, r)
	}
	if minute.After(since) {
		if err := w.edge(ctx, since, minute, &acc); err != nil {
			return nil, err
		}
	}
	return statsOf(&acc), nil
}

// ceil is the first start of a span at or after t.
func ceil(t time.Time, span time.Duration) time.Time {
	s := hitl.RollupStart(t, span)
	if s.Before(t) {
		s = s.Add(span)
	}
	return s
}

// merge adds r to acc.
func merge(acc, r *hitl.Rollup) {
	acc.Asked += r.Asked
	acc.Runs += r.Runs
	acc.Answered += r.Answered
	acc.TimedOut += r.TimedOut
	acc.Cancelled += r.Cancelled
	acc.AnswerSeconds += r.AnswerSeconds
	acc.AnswerTimes.Merge(&r.AnswerTimes)
	acc.Reminders += r.Reminders
	acc.Escalations += r.Escalations
	for typ, t := range r.ByType {
		if acc.ByType == nil {
			acc.ByType = map[hitl.QuestionType]hitl.Tally{}
		}
		by := acc.ByType[typ]
		by.Settled += t.Settled
		by.TimedOut += t.TimedOut
		acc.ByType[typ] = by
	}
}

// edge adds what happened in [since, end), less than a minute, read
// exactly: the questions created in it (and the runs whose last question
// is one of them), those settled in it, and its reminders and
// escalations.
func (w *Windows) edge(ctx context.Context, since, end time.Time, acc *hitl.Rollup) error {
	asked, err := w.store.AskedBetween(ctx, since, end)
	if err != nil {
		return err
	}
	var runs []string
	seen := map[string]bool{}
	for _, q := range asked {
		acc.Asked++
		if !seen[q.RunID] {
			seen[q.RunID] = true
			runs = append(runs, q.RunID)
		}
	}
	if len(runs) > 0 {
		last, err := w.store.LastAsked(ctx, runs)
		if err != nil {
			return err
		}
		for _, run := range runs {
			if at, ok := last[run]; ok && at.Before(end) {
				acc.Runs++
			}
		}
	}
	for cursor := ""; ; {
		page, err := w.store.SettledQuestions(ctx, since, edgePage, cursor)
		if err != nil {
			return err
		}
		for _, q := range page.Questions {
			if !q.RespondedAt.Before(end) {
				return w.edgeEvents(ctx, since, end, acc)
			}
			acc.Settle(q, +1)
		}
		if page.NextCursor == "" {
			return w.edgeEvents(ctx, since, end, acc)
		}
		cursor = page.NextCursor
	}
}

func (w *Windows) edgeEvents(ctx context.Context, since, end time.Time, acc *hitl.Rollup) error {
	after, err := w.seqBefore(ctx, since)
	if err != nil {
		return err
	}
	for {
		evs, err := w.store.Events(ctx, after, edgePage)
		if err != nil {
			return err
		}
		for _, ev := range evs {
			if !ev.At.Before(end) {
				return nil
			}
			if e, ok := hitl.EventRollupEdit(ev); ok && !ev.At.Before(since) {
				e.Apply(acc)
			}
		}
		if len(evs) < edgePage {
			return nil
		}
		after = evs[len(evs)-1].Seq
	}
}

// seqBefore finds, by a binary search of the log (events are appended in
// time order), a Seq after which every event is at or after since, and
// before which none is.
func (w *Windows) seqBefore(ctx context.Context, since time.Time) (uint64, error) {
	last, err := w.store.LastSeq(ctx)
	if err != nil {
		return 0, err
	}
	lo, hi := uint64(0), last
	for lo < hi {
		mid := lo + (hi-lo)/2
		evs, err := w.store.Events(ctx, mid, 1)
		if err != nil {
			return 0, err
		}
		if len(evs) == 0 || !evs[0].At.Before(since) {
			hi = mid
		} else {
			lo = evs[0].Seq
		}
	}
	return lo, nil
}

// statsOf is the stats of the merged rollup of a window, rounded the way
// hitl.Service.Stats rounds them.
func statsOf(r *hitl.Rollup) *hitl.Stats {
	st := &hitl.Stats{Asked: r.Asked, Answered: r.Answered, TimedOut: r.TimedOut, Cancelled: r.Cancelled,
		RemindersSent: r.Reminders, Escalations: r.Escalations, TimeoutRateByType: map[hitl.QuestionType]float64{}}
	if r.Answered > 0 {
		st.AvgTimeToAnswerSeconds = round3(r.AnswerSeconds / float64(r.Answered))
		st.P50TimeToAnswerSeconds = round3(r.AnswerTimes.Quantile(0.5))
		st.P90TimeToAnswerSeconds = round3(r.AnswerTimes.Quantile(0.9))
	}
	for typ, by := range r.ByType {
		if by.Settled > 0 {
			st.TimeoutRateByType[typ] = round3(float64(by.TimedOut) / float64(by.Settled))
		}
	}
	if r.Runs > 0 {
		st.QuestionsPerRun = round3(float64(r.Asked) / float64(r.Runs))
	}
	if d := r.Answered + r.TimedOut; d > 0 {
		st.ResponseRate = round3(float64(r.Answered) / float64(d))
	}
	return st
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }
