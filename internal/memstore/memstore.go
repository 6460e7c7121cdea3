// Package memstore is an in-memory hitl.Store for tests of the lifecycle and
// the edges. It keeps the store's contract (atomic updates, idempotency keys,
// due questions in deadline order) but nothing survives the process.
package memstore

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/hitlbot/hitl"
)

// Store is an in-memory hitl.Store.
type Store struct {
	mu        sync.Mutex
	questions map[string]*hitl.Question
	order     []string
	keys      map[string]string
	events    []*hitl.Event
}

var _ hitl.Store = (*Store)(nil)

// New returns an empty store.
func New() *Store {
	return &Store{questions: map[string]*hitl.Question{}, keys: map[string]string{}}
}

// CreateQuestion implements hitl.Store.
func (s *Store) CreateQuestion(_ context.Context, q *hitl.Question, ev *hitl.Event) (*hitl.Question, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if q.IdempotencyKey != "" {
		if id, ok := s.keys[q.JobID+"\x00"+q.IdempotencyKey]; ok {
			return s.questions[id].Clone(), false, nil
		}
		s.keys[q.JobID+"\x00"+q.IdempotencyKey] = q.ID
	}
	s.questions[q.ID] = q.Clone()
	s.order = append(s.order, q.ID)
	s.append(ev)
	return q.Clone(), true, nil
}

// UpdateQuestion implements hitl.Store.
func (s *Store) UpdateQuestion(_ context.Context, id string, fn func(*hitl.Question) (*hitl.Event, error)) (*hitl.Question, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.questions[id]
	if !ok {
		return nil, hitl.Errorf(hitl.ENOTFOUND, "question %s not found", id)
	}
	q := cur.Clone()
	ev, err := fn(q)
	if err != nil {
		return nil, err
	}
	s.questions[id] = q.Clone()
	if q.IdempotencyKey != "" && q.ReceivedAt != nil && s.keys[q.JobID+"\x00"+q.IdempotencyKey] == id {
		delete(s.keys, q.JobID+"\x00"+q.IdempotencyKey) // the outcome was taken: the key is free
	}
	s.append(ev)
	return q, nil
}

// QuestionByKey implements hitl.Store.
func (s *Store) QuestionByKey(_ context.Context, jobID, key string) (*hitl.Question, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, ok := s.keys[jobID+"\x00"+key]; ok {
		return s.questions[id].Clone(), nil
	}
	return nil, hitl.Errorf(hitl.ENOTFOUND, "no question of run %s holds key %q", jobID, key)
}

// SealedQuestions implements hitl.Store (by scanning: fine for tests).
func (s *Store) SealedQuestions(context.Context) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for _, id := range s.order {
		if q := s.questions[id]; q.Response != nil && q.Response.Sealed != nil {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// AppendEvent implements hitl.Store.
func (s *Store) AppendEvent(_ context.Context, ev *hitl.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.append(ev)
	return nil
}

func (s *Store) append(ev *hitl.Event) {
	if ev == nil {
		return
	}
	ev.Seq = uint64(len(s.events) + 1)
	c := *ev
	s.events = append(s.events, &c)
}

// Question implements hitl.Store.
func (s *Store) Question(_ context.Context, id string) (*hitl.Question, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, ok := s.questions[id]
	if !ok {
		return nil, hitl.Errorf(hitl.ENOTFOUND, "question %s not found", id)
	}
	return q.Clone(), nil
}

// Questions implements hitl.Store.
func (s *Store) Questions(_ context.Context, f hitl.QuestionFilter) ([]*hitl.Question, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*hitl.Question
	for _, id := range s.order {
		if q := s.questions[id]; f.Match(q) {
			out = append(out, q.Clone())
			if f.Limit > 0 && len(out) == f.Limit {
				break
			}
		}
	}
	return out, nil
}

// DueQuestions implements hitl.Store (by scanning: fine for tests).
func (s *Store) DueQuestions(_ context.Context, now time.Time, limit int) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var due []*hitl.Question
	for _, q := range s.questions {
		if q.Pending() && q.TimeoutAt != nil && !q.TimeoutAt.After(now) {
			due = append(due, q)
		}
	}
	sort.Slice(due, func(i, j int) bool { return due[i].TimeoutAt.Before(*due[j].TimeoutAt) })
	ids := []string{}
	for _, q := range due {
		if len(ids) == limit {
			break
		}
		ids = append(ids, q.ID)
	}
	return ids, nil
}

// Events implements hitl.Store.
func (s *Store) Events(_ context.Context, after uint64, limit int) ([]*hitl.Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*hitl.Event
	for _, ev := range s.events {
		if ev.Seq > after {
			c := *ev
			out = append(out, &c)
			if limit > 0 && len(out) == limit {
				break
			}
		}
	}
	return out, nil
}
