// Package observe owns observation: the stats of a window (hitl stats,
// GET /api/stats) computed from the rollups the stores keep with the
// event log (hitl.Rollup: per hour, ten minutes and minute), so that a
// window costs what its hours cost, not what its questions do.
//
// A window starts at the start of the minute its since falls in
// (Stats.Since says so) and runs to now: its whole hours are read from
// hour rollups (the last one, the current hour, holds everything so far),
// the rest of its first hour from ten-minute and minute rollups (at most
// 5 and 9): at most 38 rollups for a day. Every count is exact for that
// window, and so is the average time to answer (a sum); the percentiles
// come from the merged sketch of the answer times (sketch):
// exact up to 64 answers in the window, else within 1% of the exact
// nearest-rank percentile (docs/operations.md#how-exact-stats-are).
//
// It owns how the rollups are kept, too: the edits each question, event
// and run adds, which the stores apply in the transaction that writes
// them (rollup.go).
//
// It also owns what stats report (Stats, stats.go) and the alert rule
// (AlertConfig.Evaluate, alert.go): which alerts start and clear, by
// name, from what the service counted; an Alert itself is the root's, as
// the event log records it.
//
// The alerts (service.Alerts) do not read rollups: they follow the log in
// memory and read the questions settled in their window (an hour) once,
// at start, checking each against the log by id, which a rollup cannot.
package observe

import (
	"context"
	"math"
	"time"

	"github.com/hitlbot/hitl"
)

// Windows computes windows' stats from a store's rollups; it implements
// service.StatsWindow.
type Windows struct {
	store hitl.RollupStore
}

// New returns the stats windows of st.
func New(st hitl.RollupStore) *Windows { return &Windows{store: st} }

// WindowStats implements service.StatsWindow: the stats of every run from
// the start of since's minute to now (Since set; Alerts are the
// caller's).
func (w *Windows) WindowStats(ctx context.Context, since time.Time) (*Stats, error) {
	start := hitl.RollupStart(since, hitl.RollupSpans[0])
	var acc hitl.Rollup
	from := start
	for i, span := range hitl.RollupSpans {
		to := time.Unix(1<<40, 0) // the longest span: to the end
		if i+1 < len(hitl.RollupSpans) {
			to = ceil(from, hitl.RollupSpans[i+1])
		}
		rs, err := w.store.Rollups(ctx, span, from, to)
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			merge(&acc, r)
		}
		from = to
	}
	st := statsOf(&acc)
	st.Since = start
	return st, nil
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

// statsOf is the stats of the merged rollup of a window, rounded the way
// service.Observation.Stats rounds them.
func statsOf(r *hitl.Rollup) *Stats {
	st := &Stats{Asked: r.Asked, Answered: r.Answered, TimedOut: r.TimedOut, Cancelled: r.Cancelled,
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
