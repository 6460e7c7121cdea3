package memstore

import (
	"context"
	"sort"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/observe"
)

// rollups are the store's hitl.Rollups and the runs' last question
// times, edited under the store's lock with the write that changes them.
type rollups struct {
	spans     map[rollupKey]*hitl.Rollup
	lastAsked map[string]time.Time // run id → when its last question was created
}

type rollupKey struct {
	span  time.Duration
	start int64
}

var _ hitl.RollupStore = (*Store)(nil)

// edit applies edits to the rollups of every span.
func (s *Store) edit(edits ...hitl.RollupEdit) {
	if s.rollups.spans == nil {
		s.rollups.spans = map[rollupKey]*hitl.Rollup{}
	}
	for _, e := range edits {
		for _, span := range hitl.RollupSpans {
			start := hitl.RollupStart(e.At, span)
			k := rollupKey{span, start.UnixNano()}
			r := s.rollups.spans[k]
			if r == nil {
				r = &hitl.Rollup{Span: span, Start: start}
				s.rollups.spans[k] = r
			}
			e.Apply(r)
			if r.Empty() {
				delete(s.rollups.spans, k)
			}
		}
	}
}

// rollupQuestion edits the rollups for a question write from old to cur.
func (s *Store) rollupQuestion(old, cur *hitl.Question) {
	s.edit(observe.QuestionRollupEdits(old, cur)...)
	if old != nil || cur == nil {
		return
	}
	if s.rollups.lastAsked == nil {
		s.rollups.lastAsked = map[string]time.Time{}
	}
	prev := s.rollups.lastAsked[cur.RunID]
	if !cur.CreatedAt.After(prev) {
		return
	}
	s.rollups.lastAsked[cur.RunID] = cur.CreatedAt
	s.edit(observe.RunRollupEdits(prev, cur.CreatedAt)...)
}

// rollupEvent edits the rollups for an appended event.
func (s *Store) rollupEvent(ev *hitl.Event) {
	if e, ok := observe.EventRollupEdit(ev); ok {
		s.edit(e)
	}
}

// pruneRollups drops the rollups that end at or before before, and the
// last question times before it.
func (s *Store) pruneRollups(before time.Time) {
	for k, r := range s.rollups.spans {
		if !r.Start.Add(r.Span).After(before) {
			delete(s.rollups.spans, k)
		}
	}
	for run, at := range s.rollups.lastAsked {
		if at.Before(before) {
			delete(s.rollups.lastAsked, run)
		}
	}
}

// Rollups implements hitl.RollupStore (by scanning: fine for tests).
func (s *Store) Rollups(_ context.Context, span time.Duration, from, to time.Time) ([]*hitl.Rollup, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*hitl.Rollup
	for k, r := range s.rollups.spans {
		if k.span == span && !r.Start.Before(from) && r.Start.Before(to) {
			c := *r
			c.ByType = clonedTallies(r.ByType)
			c.AnswerTimes = *r.AnswerTimes.Clone()
			out = append(out, &c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
	return out, nil
}

func clonedTallies(m map[hitl.QuestionType]hitl.Tally) map[hitl.QuestionType]hitl.Tally {
	if m == nil {
		return nil
	}
	c := make(map[hitl.QuestionType]hitl.Tally, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}
