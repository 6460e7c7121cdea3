package memstore

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
)

// PendingByType implements hitl.QuestionStore (by scanning: fine for tests).
func (s *Store) PendingByType(context.Context) (map[hitl.QuestionType]int, uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	counts := map[hitl.QuestionType]int{}
	for _, q := range s.questions {
		if q.Pending() {
			counts[q.Type]++
		}
	}
	return counts, s.seq, nil
}

// SettledQuestions implements hitl.QuestionStore by sorting the settled questions
// the way the bbolt store's by_settled index orders them (settle time,
// then id).
func (s *Store) SettledQuestions(_ context.Context, since time.Time, limit int, cursor string) (hitl.QuestionPage, error) {
	if cursor != "" && (len(cursor) < 22 || cursor[20] != '|') {
		return hitl.QuestionPage{}, fault.Errorf(fault.EINVALID, "cursor %q does not belong to this list: use the nextCursor of the previous page", cursor)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	type entry struct {
		key string
		q   *hitl.Question
	}
	var all []entry
	for _, q := range s.questions {
		if q.Pending() || q.RespondedAt == nil || q.RespondedAt.Before(since) {
			continue
		}
		all = append(all, entry{fmt.Sprintf("%020d|%s", q.RespondedAt.UnixNano(), q.ID), q})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].key < all[j].key })
	size := hitl.QuestionFilter{Limit: limit}.PageSize()
	page := hitl.QuestionPage{Questions: []*hitl.Question{}}
	last := ""
	for _, e := range all {
		if cursor != "" && e.key <= cursor {
			continue
		}
		if len(page.Questions) == size {
			page.NextCursor = last
			break
		}
		page.Questions = append(page.Questions, e.q.Clone())
		last = e.key
	}
	return page, nil
}
