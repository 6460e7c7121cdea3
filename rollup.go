package hitl

import (
	"context"
	"time"

	"github.com/hitlbot/hitl/internal/sketch"
)

// RollupSpans are the spans the stores keep rollups at, shortest first,
// each a whole number of the one before: a window is read from hours, the
// ten-minute spans of its first hour, and the minutes before those
// (docs/operations.md#how-exact-stats-are).
var RollupSpans = []time.Duration{time.Minute, 10 * time.Minute, time.Hour}

// Rollup is what Stats needs of one span of time (an hour or a minute),
// kept by the stores with the event log: every write that asks, settles,
// reopens or deletes a question, or logs a reminder or an escalation,
// edits the rollups of its times in the same transaction. A rollup counts
// the questions stored now: asked (created) in it and settled in it,
// whenever they were asked.
type Rollup struct {
	Span  time.Duration `json:"span"`
	Start time.Time     `json:"start"`
	// Asked counts the questions created in the span; Runs the runs
	// whose last question was created in it (so the runs that asked in
	// a window that runs to now are the sum of Runs over its spans).
	Asked int `json:"asked,omitempty"`
	Runs  int `json:"runs,omitempty"`
	// The questions settled in the span, by outcome and by type.
	Answered  int                    `json:"answered,omitempty"`
	TimedOut  int                    `json:"timedOut,omitempty"`
	Cancelled int                    `json:"cancelled,omitempty"`
	ByType    map[QuestionType]Tally `json:"byType,omitempty"`
	// AnswerSeconds sums, and AnswerTimes sketches, the times from asking
	// to the answer of the questions answered in the span.
	AnswerSeconds float64       `json:"answerSeconds,omitempty"`
	AnswerTimes   sketch.Sketch `json:"answerTimes"`
	// Reminders and Escalations count the events logged in the span
	// (CountsAsReminder, CountsAsEscalation).
	Reminders   int `json:"reminders,omitempty"`
	Escalations int `json:"escalations,omitempty"`
}

// RollupEdit is one change to the rollups of the spans that hold At.
type RollupEdit struct {
	At    time.Time
	Apply func(*Rollup)
}

// QuestionRollupEdits are the edits of a question write from old to cur
// (old nil: created; cur nil: deleted): old's part is taken out, cur's
// added.
func QuestionRollupEdits(old, cur *Question) []RollupEdit {
	var edits []RollupEdit
	if old == nil || cur == nil || !old.CreatedAt.Equal(cur.CreatedAt) {
		if old != nil {
			edits = append(edits, RollupEdit{At: old.CreatedAt, Apply: func(r *Rollup) { r.Asked-- }})
		}
		if cur != nil {
			edits = append(edits, RollupEdit{At: cur.CreatedAt, Apply: func(r *Rollup) { r.Asked++ }})
		}
	}
	if old != nil && cur != nil && settledIn(old) == settledIn(cur) && old.Status == cur.Status && old.Type == cur.Type &&
		(!settledIn(old) || old.RespondedAt.Equal(*cur.RespondedAt) && old.CreatedAt.Equal(cur.CreatedAt)) {
		return edits // the same settled part, or none
	}
	for _, c := range []struct {
		q    *Question
		sign int
	}{{old, -1}, {cur, +1}} {
		if c.q == nil || !settledIn(c.q) {
			continue
		}
		part, sign := settledPartOf(c.q), c.sign // the values now: the edit may be applied later in the write
		edits = append(edits, RollupEdit{At: *c.q.RespondedAt, Apply: func(r *Rollup) { r.settle(part, sign) }})
	}
	return edits
}

// settledPart is what a settled question adds to its rollup.
type settledPart struct {
	typ     QuestionType
	status  Status
	seconds float64 // to the answer
}

func settledPartOf(q *Question) settledPart {
	return settledPart{typ: q.Type, status: q.Status, seconds: q.RespondedAt.Sub(q.CreatedAt).Seconds()} // as Stats counts it
}

// settledIn reports whether q counts as settled in the rollup of its
// RespondedAt.
func settledIn(q *Question) bool { return !q.Pending() && q.RespondedAt != nil }

// settle adds (sign +1) or takes out (-1) a settled question's part.
func (r *Rollup) settle(q settledPart, sign int) {
	if r.ByType == nil {
		r.ByType = map[QuestionType]Tally{}
	}
	by := r.ByType[q.typ]
	by.Settled += sign
	switch q.status {
	case StatusAnswered:
		r.Answered += sign
		v := q.seconds
		r.AnswerSeconds += float64(sign) * v
		if sign > 0 {
			r.AnswerTimes.Add(v)
		} else {
			r.AnswerTimes.Remove(v)
		}
	case StatusTimeout:
		r.TimedOut += sign
		by.TimedOut += sign
	case StatusCancelled:
		r.Cancelled += sign
	}
	if by == (Tally{}) {
		delete(r.ByType, q.typ)
	} else {
		r.ByType[q.typ] = by
	}
}

// EventRollupEdit is the edit of appending ev, if it has one (a reminder
// or an escalation).
func EventRollupEdit(ev *Event) (RollupEdit, bool) {
	switch {
	case CountsAsReminder(ev.Type):
		return RollupEdit{At: ev.At, Apply: func(r *Rollup) { r.Reminders++ }}, true
	case CountsAsEscalation(ev.Type):
		return RollupEdit{At: ev.At, Apply: func(r *Rollup) { r.Escalations++ }}, true
	}
	return RollupEdit{}, false
}

// RunRollupEdits are the edits of a run's last question moving from prev
// (zero: the run asked none) to cur.
func RunRollupEdits(prev, cur time.Time) []RollupEdit {
	if prev.Equal(cur) {
		return nil
	}
	edits := []RollupEdit{{At: cur, Apply: func(r *Rollup) { r.Runs++ }}}
	if !prev.IsZero() {
		edits = append(edits, RollupEdit{At: prev, Apply: func(r *Rollup) { r.Runs-- }})
	}
	return edits
}

// Empty reports whether r counts nothing (a store may delete it).
func (r *Rollup) Empty() bool {
	return r.Asked == 0 && r.Runs == 0 && r.Answered == 0 && r.TimedOut == 0 && r.Cancelled == 0 &&
		len(r.ByType) == 0 && r.AnswerTimes.N == 0 && r.Reminders == 0 && r.Escalations == 0
}

// RollupStart is the start of the span of length span that holds t.
func RollupStart(t time.Time, span time.Duration) time.Time { return t.Truncate(span).UTC() }

// RollupStore keeps the rollups (stores implement it with the event log;
// docs/operations.md#how-exact-stats-are). Rollups returns the rollups of
// span whose start is in [from, to), by start (spans with nothing in them
// are left out).
type RollupStore interface {
	Rollups(ctx context.Context, span time.Duration, from, to time.Time) ([]*Rollup, error)
}

// CountsAsReminder and CountsAsEscalation say whether an event of type t
// is a reminder sent or an escalation, for readers of the log that count
// them (metrics).
func CountsAsReminder(t EventType) bool { return t == EventQuestionReminded }

func CountsAsEscalation(t EventType) bool { return t == EventQuestionEscalated }
