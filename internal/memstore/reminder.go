package memstore

import (
	"context"
	"sort"
	"time"
)

// DueReminders implements hitl.ReminderStore (by scanning: fine for tests).
func (s *Store) DueReminders(_ context.Context, now time.Time, limit int) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	type due struct {
		id string
		at time.Time
	}
	var all []due
	for _, q := range s.questions {
		if q.Pending() && q.Reminders != nil && q.Reminders.Next != nil && !q.Reminders.Next.After(now) {
			all = append(all, due{q.ID, *q.Reminders.Next})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if !all[i].at.Equal(all[j].at) {
			return all[i].at.Before(all[j].at)
		}
		return all[i].id < all[j].id
	})
	ids := []string{}
	for _, d := range all {
		if limit > 0 && len(ids) == limit {
			break
		}
		ids = append(ids, d.id)
	}
	return ids, nil
}
