package service

import (
	"context"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/observe"
)

// tallyAll reads the questions asked since (newest first, by the
// creation-time index, until one is older) and those settled since (by
// the settle-time index).
func (s *Observation) tallyAll(ctx context.Context, since time.Time, t *statsTally) error {
	f := hitl.QuestionFilter{Reverse: true, Limit: hitl.MaxPageSize}
	for {
		page, err := s.store.Questions(ctx, f)
		if err != nil {
			return err
		}
		for _, q := range page.Questions {
			if q.CreatedAt.Before(since) {
				return s.tallySettled(ctx, since, t)
			}
			t.ask(q)
		}
		if page.NextCursor == "" {
			return s.tallySettled(ctx, since, t)
		}
		f.Cursor = page.NextCursor
	}
}

func (s *Observation) tallySettled(ctx context.Context, since time.Time, t *statsTally) error {
	return s.eachSettled(ctx, since, t.settle)
}

// eachSettled calls fn on each question settled since since, read page by
// page by the settle-time index.
func (k *Observation) eachSettled(ctx context.Context, since time.Time, fn func(*hitl.Question)) error {
	cursor := ""
	for {
		page, err := k.store.SettledQuestions(ctx, since, hitl.MaxPageSize, cursor)
		if err != nil {
			return err
		}
		for _, q := range page.Questions {
			fn(q)
		}
		if page.NextCursor == "" {
			return nil
		}
		cursor = page.NextCursor
	}
}

// tallyRun reads run's questions by the run index.
func (s *Observation) tallyRun(ctx context.Context, run string, since time.Time, t *statsTally) error {
	f := hitl.QuestionFilter{RunID: run, Limit: hitl.MaxPageSize}
	for {
		page, err := s.store.Questions(ctx, f)
		if err != nil {
			return err
		}
		for _, q := range page.Questions {
			if !q.CreatedAt.Before(since) {
				t.ask(q)
			}
			if !q.Pending() && q.RespondedAt != nil && !q.RespondedAt.Before(since) {
				t.settle(q)
			}
		}
		if page.NextCursor == "" {
			return nil
		}
		f.Cursor = page.NextCursor
	}
}

// tallyEvents counts the reminders and escalations of the window: of one
// run by the run's event index, else from the first event of the window.
func (s *Observation) tallyEvents(ctx context.Context, run string, since time.Time, t *statsTally) error {
	count := func(evs []*hitl.Event) {
		for _, ev := range evs {
			if ev.At.Before(since) {
				continue
			}
			switch {
			case observe.CountsAsReminder(ev.Type):
				t.reminders++
			case observe.CountsAsEscalation(ev.Type):
				t.escalations++
			}
		}
	}
	if run != "" {
		for after := uint64(0); ; {
			evs, through, err := s.store.RunEvents(ctx, run, after, hitl.MaxPageSize)
			if err != nil {
				return err
			}
			count(evs)
			if len(evs) < hitl.MaxPageSize {
				return nil
			}
			after = through
		}
	}
	after, err := s.seqBefore(ctx, since)
	if err != nil {
		return err
	}
	for {
		evs, err := s.store.Events(ctx, after, hitl.MaxPageSize)
		if err != nil {
			return err
		}
		count(evs)
		if len(evs) < hitl.MaxPageSize {
			return nil
		}
		after = evs[len(evs)-1].Seq
	}
}

// seqBefore finds, by a binary search of the log (events are appended in
// time order), a Seq after which every event is at or after since, and
// before which none is: the cursor to read the window's events from. It
// costs a few reads, however long the log.
func (s *Observation) seqBefore(ctx context.Context, since time.Time) (uint64, error) {
	last, err := s.store.LastSeq(ctx)
	if err != nil {
		return 0, err
	}
	lo, hi := uint64(0), last // the answer is in [lo, hi]
	for lo < hi {
		mid := lo + (hi-lo)/2
		evs, err := s.store.Events(ctx, mid, 1)
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
