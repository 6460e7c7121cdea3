package hitl

import (
	"context"
	"time"

	"github.com/hitlbot/hitl/sketch"
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
