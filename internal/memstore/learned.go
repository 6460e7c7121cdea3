package memstore

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
)

// The learned rules: by id, and the id each key holds. Listing sorts the
// ids it selects (this store is for tests; the bbolt store reads indexes).

// PutLearnedRule implements hitl.PolicyStore.
func (s *Store) PutLearnedRule(_ context.Context, r *hitl.LearnedRule, evs ...*hitl.Event) error {
	if r == nil || r.ID == "" {
		return fault.Errorf(fault.EINVALID, "a learned rule needs an id")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.learned == nil {
		s.learned, s.learnedByKey = map[string]hitl.LearnedRule{}, map[hitl.LearnedRuleKey]string{}
	}
	if old, ok := s.learnedByKey[r.Key()]; ok {
		s.deleteLearned(old)
	}
	s.deleteLearned(r.ID)
	s.learned[r.ID] = *r
	s.learnedByKey[r.Key()] = r.ID
	for _, ev := range evs {
		s.append(ev)
	}
	return nil
}

// deleteLearned deletes rule id and its key, if the key is still its.
func (s *Store) deleteLearned(id string) (hitl.LearnedRule, bool) {
	r, ok := s.learned[id]
	if !ok {
		return r, false
	}
	delete(s.learned, id)
	if s.learnedByKey[r.Key()] == id {
		delete(s.learnedByKey, r.Key())
	}
	return r, true
}

// LearnedRule implements hitl.PolicyStore.
func (s *Store) LearnedRule(_ context.Context, key hitl.LearnedRuleKey) (*hitl.LearnedRule, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.learnedByKey[key]
	if !ok {
		return nil, nil
	}
	r := s.learned[id]
	return &r, nil
}

// DeleteLearnedRule implements hitl.PolicyStore.
func (s *Store) DeleteLearnedRule(_ context.Context, id string, evOf ...func(*hitl.LearnedRule) *hitl.Event) (*hitl.LearnedRule, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.deleteLearned(id)
	if !ok {
		return nil, fault.Errorf(fault.ENOTFOUND, "no learned rule %s", id)
	}
	for _, f := range evOf {
		s.append(f(&r))
	}
	return &r, nil
}

// LearnedRules implements hitl.PolicyStore.
func (s *Store) LearnedRules(_ context.Context, f hitl.LearnedRuleFilter) (hitl.LearnedRulePage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for id, r := range s.learned {
		if id > f.Cursor && (f.Agent == "" || r.Agent == f.Agent) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	page := hitl.LearnedRulePage{Rules: []*hitl.LearnedRule{}}
	limit := f.PageSize()
	for i, id := range ids {
		if i == limit {
			page.NextCursor = ids[i-1]
			break
		}
		r := s.learned[id]
		page.Rules = append(page.Rules, &r)
	}
	return page, nil
}

// PruneLearnedRules implements hitl.PolicyStore: the rules expiring first go
// first.
func (s *Store) PruneLearnedRules(_ context.Context, now time.Time, limit int) (int, error) {
	if limit <= 0 {
		limit = 256
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var due []hitl.LearnedRule
	for _, r := range s.learned {
		if r.Expired(now) {
			due = append(due, r)
		}
	}
	slices.SortFunc(due, func(a, b hitl.LearnedRule) int {
		if c := a.ExpiresAt.Compare(b.ExpiresAt); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	n := 0
	for _, r := range due[:min(limit, len(due))] {
		s.deleteLearned(r.ID)
		n++
	}
	return n, nil
}
