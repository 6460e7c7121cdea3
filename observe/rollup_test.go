package observe_test

import (
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/observe"
	"github.com/hitlbot/hitl/sketch"
	"github.com/stretchr/testify/assert"
)

// TestRollupEdits is the rule of what each write adds to the rollups, row
// by row: applied to empty rollups of the hours it touches.
func TestRollupEdits(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 9, 10, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { v := t0.Add(d); return &v }
	pending := &hitl.Question{ID: "q1", Type: hitl.Approval, Status: hitl.StatusPending, CreatedAt: t0}
	answered := &hitl.Question{ID: "q1", Type: hitl.Approval, Status: hitl.StatusAnswered, CreatedAt: t0, RespondedAt: at(90 * time.Minute)}
	timedOut := &hitl.Question{ID: "q1", Type: hitl.Approval, Status: hitl.StatusTimeout, CreatedAt: t0, RespondedAt: at(time.Hour)}
	cancelled := &hitl.Question{ID: "q1", Type: hitl.Approval, Status: hitl.StatusCancelled, CreatedAt: t0, RespondedAt: at(time.Hour)}
	sketched := func(vs ...float64) (s sketch.Sketch) {
		for _, v := range vs {
			s.Add(v)
		}
		return s
	}
	h9, h10 := t0.Truncate(time.Hour), t0.Truncate(time.Hour).Add(time.Hour)
	for _, c := range []struct {
		name     string
		old, cur *hitl.Question
		want     map[time.Time]hitl.Rollup // hour → what the edits add
	}{
		{"asked", nil, pending, map[time.Time]hitl.Rollup{h9: {Asked: 1}}},
		{"answered: in the hour of its answer, with its time", pending, answered, map[time.Time]hitl.Rollup{
			h10: {Answered: 1, ByType: map[hitl.QuestionType]hitl.Tally{hitl.Approval: {Settled: 1}}, AnswerSeconds: 5400, AnswerTimes: sketched(5400)}}},
		{"timed out: by type too", pending, timedOut, map[time.Time]hitl.Rollup{
			h10: {TimedOut: 1, ByType: map[hitl.QuestionType]hitl.Tally{hitl.Approval: {Settled: 1, TimedOut: 1}}}}},
		{"cancelled", pending, cancelled, map[time.Time]hitl.Rollup{
			h10: {Cancelled: 1, ByType: map[hitl.QuestionType]hitl.Tally{hitl.Approval: {Settled: 1}}}}},
		{"reopened: the answer is taken out", answered, pending, map[time.Time]hitl.Rollup{
			h10: {Answered: -1, ByType: map[hitl.QuestionType]hitl.Tally{hitl.Approval: {Settled: -1}}, AnswerSeconds: -5400}}},
		{"a write that keeps status and times adds nothing", pending, pending, map[time.Time]hitl.Rollup{}},
		{"pruned: asked and settled are taken out", answered, nil, map[time.Time]hitl.Rollup{
			h9:  {Asked: -1},
			h10: {Answered: -1, ByType: map[hitl.QuestionType]hitl.Tally{hitl.Approval: {Settled: -1}}, AnswerSeconds: -5400}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := map[time.Time]hitl.Rollup{}
			for _, e := range observe.QuestionRollupEdits(c.old, c.cur) {
				h := hitl.RollupStart(e.At, time.Hour)
				r := got[h]
				e.Apply(&r)
				got[h] = r
			}
			for h, r := range got {
				if r.ByType != nil && len(r.ByType) == 0 {
					r.ByType = nil
					got[h] = r
				}
			}
			assert.Equal(t, c.want, got)
		})
	}

	t.Run("reminders and escalations count in the hour they are logged; other events do not", func(t *testing.T) {
		for typ, want := range map[hitl.EventType]hitl.Rollup{
			hitl.EventQuestionReminded:  {Reminders: 1},
			hitl.EventQuestionEscalated: {Escalations: 1},
		} {
			e, ok := observe.EventRollupEdit(&hitl.Event{Type: typ, At: t0})
			assert.True(t, ok)
			var r hitl.Rollup
			e.Apply(&r)
			assert.Equal(t, want, r)
		}
		_, ok := observe.EventRollupEdit(&hitl.Event{Type: hitl.EventQuestionAnswered, At: t0})
		assert.False(t, ok)
	})
	t.Run("a run counts in the span of its last question only", func(t *testing.T) {
		got := map[time.Time]int{}
		for _, e := range observe.RunRollupEdits(time.Time{}, t0) {
			var r hitl.Rollup
			e.Apply(&r)
			got[hitl.RollupStart(e.At, time.Hour)] += r.Runs
		}
		assert.Equal(t, map[time.Time]int{h9: 1}, got)
		got = map[time.Time]int{}
		for _, e := range observe.RunRollupEdits(t0, t0.Add(time.Hour)) {
			var r hitl.Rollup
			e.Apply(&r)
			got[hitl.RollupStart(e.At, time.Hour)] += r.Runs
		}
		assert.Equal(t, map[time.Time]int{h9: -1, h10: 1}, got)
		assert.Empty(t, observe.RunRollupEdits(t0, t0))
	})
}
