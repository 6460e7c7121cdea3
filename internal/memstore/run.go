package memstore

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hitlbot/hitl"
)

// UpdateRun implements hitl.RunStore.
func (s *Store) UpdateRun(ctx context.Context, id string, fn func(*hitl.Run) (hitl.RunUpdate, error)) (*hitl.Run, error) {
	return s.SteerRun(ctx, id, hitl.ControlKey{}, func(run *hitl.Run, _ *hitl.ControlRecord) (hitl.RunUpdate, error) { return fn(run) })
}

// SteerRun implements hitl.RunStore: one lock serialises every write.
func (s *Store) SteerRun(_ context.Context, id string, key hitl.ControlKey, fn func(*hitl.Run, *hitl.ControlRecord) (hitl.RunUpdate, error)) (*hitl.Run, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var arg *hitl.Run
	if run := s.runs[id]; run != nil {
		c := *run
		arg = &c
	}
	var prior *hitl.ControlRecord
	if rec, ok := s.control[key]; ok && key.RequestID != "" {
		prior = &rec
	}
	u, err := fn(arg, prior)
	if err != nil {
		return nil, err
	}
	run := s.runs[id]
	if u.Run != nil {
		if u.Run.ID != id {
			return nil, fmt.Errorf("memstore: update run %s: fn returned run %q", id, u.Run.ID)
		}
		c := *u.Run
		c.Version++
		s.runs[id] = &c
		run = &c
	}
	for _, ev := range u.Events {
		if run != nil {
			ev.Status, ev.Asker = run.Status(), run.Asker
		}
		s.append(ev)
	}
	if u.Control != nil {
		s.control[u.Control.Key()] = *u.Control
	}
	if run == nil {
		return nil, nil
	}
	c := *run
	return &c, nil
}

// Runs implements hitl.RunStore.
func (s *Store) Runs(_ context.Context, active bool, limit int, cursor string) (hitl.RunPage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if limit <= 0 || limit > hitl.MaxPageSize {
		limit = hitl.DefaultPageSize
	}
	var ids []string
	for id, run := range s.runs {
		if (!active || run.Open()) && id > cursor {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	page := hitl.RunPage{Runs: []*hitl.Run{}}
	for _, id := range ids {
		if len(page.Runs) == limit {
			page.NextCursor = page.Runs[len(page.Runs)-1].ID
			break
		}
		c := *s.runs[id]
		page.Runs = append(page.Runs, &c)
	}
	return page, nil
}

// RunsByPrefix implements hitl.RunStore.
func (s *Store) RunsByPrefix(_ context.Context, prefix string, limit int) ([]*hitl.Run, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for id := range s.runs {
		if strings.HasPrefix(id, prefix) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	runs := []*hitl.Run{}
	for _, id := range ids[:min(len(ids), max(limit, 0))] {
		c := *s.runs[id]
		runs = append(runs, &c)
	}
	return runs, nil
}

// CountQuestions implements hitl.QuestionStore.
func (s *Store) CountQuestions(_ context.Context, status hitl.Status) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, q := range s.questions {
		if q.Status == status {
			n++
		}
	}
	return n, nil
}

// LastSeq implements hitl.EventStore.
func (s *Store) LastSeq(context.Context) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq, nil
}

// PolicyState implements hitl.PolicyStore.
func (s *Store) PolicyState(context.Context) (*hitl.PolicyState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.policy == nil {
		return nil, nil
	}
	c := *s.policy
	return &c, nil
}

// PutPolicyState implements hitl.PolicyStore.
func (s *Store) PutPolicyState(_ context.Context, st *hitl.PolicyState, evs ...*hitl.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := *st
	s.policy = &c
	for _, ev := range evs {
		s.append(ev)
	}
	return nil
}

// UpdateQuestions implements hitl.QuestionStore.
func (s *Store) UpdateQuestions(ctx context.Context, ids []string, fn func(*hitl.Question) (*hitl.Event, error)) ([]*hitl.Question, []error, error) {
	updated := make([]*hitl.Question, len(ids))
	errs := make([]error, len(ids))
	for i, id := range ids {
		updated[i], errs[i] = s.UpdateQuestion(ctx, id, fn)
	}
	return updated, errs, nil
}
