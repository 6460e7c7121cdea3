package memstore

import (
	"context"
	"time"

	"github.com/hitlbot/hitl"
)

// SeeEnvelope implements hitl.EnvelopeStore.
func (s *Store) SeeEnvelope(_ context.Context, now time.Time, window time.Duration, ids ...string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.envelopes == nil {
		s.envelopes = map[string]time.Time{}
	}
	cutoff := now.Add(-window)
	seen, n := false, 0
	mine := map[string]bool{}
	for _, id := range ids {
		if id == "" || mine[id] {
			continue
		}
		mine[id] = true
		n++
		if at, ok := s.envelopes[id]; ok && at.After(cutoff) {
			seen = true
			continue
		}
		s.envelopes[id] = now
	}
	limit := n * hitl.EnvelopePrune
	for id, at := range s.envelopes {
		if limit == 0 {
			break
		}
		if !at.After(cutoff) {
			delete(s.envelopes, id)
			limit--
		}
	}
	return seen, nil
}
