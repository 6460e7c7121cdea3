package memstore

import (
	"sort"
	"time"
)

// lease is the claim half of the outboxes' lease (mail, webhook
// deliveries): of the due records, soonest first (then by sequence
// number, both read by at), at most limit (none for limit ≤ 0), each
// stamped by claim (moved to its lease's end, its claim count raised) and
// kept by keep.
func lease[T any](due []T, limit int, at func(T) (time.Time, uint64), claim func(*T), keep func(T)) []T {
	sort.Slice(due, func(i, j int) bool {
		ai, as := at(due[i])
		bi, bs := at(due[j])
		if !ai.Equal(bi) {
			return ai.Before(bi)
		}
		return as < bs
	})
	if limit > 0 && len(due) > limit {
		due = due[:limit]
	}
	for i := range due {
		claim(&due[i])
		keep(due[i])
	}
	return due
}
