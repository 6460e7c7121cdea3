package observe

import (
	"time"

	"github.com/hitlbot/hitl"
)

// QuestionRollupEdits are the edits of a question write from old to cur
// (old nil: created; cur nil: deleted): old's part is taken out, cur's
// added.
func QuestionRollupEdits(old, cur *hitl.Question) []hitl.RollupEdit {
	var edits []hitl.RollupEdit
	if old == nil || cur == nil || !old.CreatedAt.Equal(cur.CreatedAt) {
		if old != nil {
			edits = append(edits, hitl.RollupEdit{At: old.CreatedAt, Apply: func(r *hitl.Rollup) { r.Asked-- }})
		}
		if cur != nil {
			edits = append(edits, hitl.RollupEdit{At: cur.CreatedAt, Apply: func(r *hitl.Rollup) { r.Asked++ }})
		}
	}
	if old != nil && cur != nil && settledIn(old) == settledIn(cur) && old.Status == cur.Status && old.Type == cur.Type &&
		(!settledIn(old) || old.RespondedAt.Equal(*cur.RespondedAt) && old.CreatedAt.Equal(cur.CreatedAt)) {
		return edits // the same settled part, or none
	}
	for _, c := range []struct {
		q    *hitl.Question
		sign int
	}{{old, -1}, {cur, +1}} {
		if c.q == nil || !settledIn(c.q) {
			continue
		}
		part, sign := settledPartOf(c.q), c.sign // the values now: the edit may be applied later in the write
		edits = append(edits, hitl.RollupEdit{At: *c.q.RespondedAt, Apply: func(r *hitl.Rollup) { settle(r, part, sign) }})
	}
	return edits
}

// settledPart is what a settled question adds to its rollup.
type settledPart struct {
	typ     hitl.QuestionType
	status  hitl.Status
	seconds float64 // to the answer
}

func settledPartOf(q *hitl.Question) settledPart {
	return settledPart{typ: q.Type, status: q.Status, seconds: q.RespondedAt.Sub(q.CreatedAt).Seconds()} // as Stats counts it
}

// settledIn reports whether q counts as settled in the rollup of its
// RespondedAt.
func settledIn(q *hitl.Question) bool { return !q.Pending() && q.RespondedAt != nil }

// settle adds (sign +1) or takes out (-1) a settled question's part.
func settle(r *hitl.Rollup, q settledPart, sign int) {
	if r.ByType == nil {
		r.ByType = map[hitl.QuestionType]hitl.Tally{}
	}
	by := r.ByType[q.typ]
	by.Settled += sign
	switch q.status {
	case hitl.StatusAnswered:
		r.Answered += sign
		v := q.seconds
		r.AnswerSeconds += float64(sign) * v
		if sign > 0 {
			r.AnswerTimes.Add(v)
		} else {
			r.AnswerTimes.Remove(v)
		}
	case hitl.StatusTimeout:
		r.TimedOut += sign
		by.TimedOut += sign
	case hitl.StatusCancelled:
		r.Cancelled += sign
	}
	if by == (hitl.Tally{}) {
		delete(r.ByType, q.typ)
	} else {
		r.ByType[q.typ] = by
	}
}

// EventRollupEdit is the edit of appending ev, if it has one (a reminder
// or an escalation).
func EventRollupEdit(ev *hitl.Event) (hitl.RollupEdit, bool) {
	switch {
	case CountsAsReminder(ev.Type):
		return hitl.RollupEdit{At: ev.At, Apply: func(r *hitl.Rollup) { r.Reminders++ }}, true
	case CountsAsEscalation(ev.Type):
		return hitl.RollupEdit{At: ev.At, Apply: func(r *hitl.Rollup) { r.Escalations++ }}, true
	}
	return hitl.RollupEdit{}, false
}

// RunRollupEdits are the edits of a run's last question moving from prev
// (zero: the run asked none) to cur.
func RunRollupEdits(prev, cur time.Time) []hitl.RollupEdit {
	if prev.Equal(cur) {
		return nil
	}
	edits := []hitl.RollupEdit{{At: cur, Apply: func(r *hitl.Rollup) { r.Runs++ }}}
	if !prev.IsZero() {
		edits = append(edits, hitl.RollupEdit{At: prev, Apply: func(r *hitl.Rollup) { r.Runs-- }})
	}
	return edits
}

// CountsAsReminder and CountsAsEscalation say whether an event of type t
// is a reminder sent or an escalation, for readers of the log that count
// them (metrics).
func CountsAsReminder(t hitl.EventType) bool { return t == hitl.EventQuestionReminded }

func CountsAsEscalation(t hitl.EventType) bool { return t == hitl.EventQuestionEscalated }
