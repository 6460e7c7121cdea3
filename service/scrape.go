package service

import (
	"context"

	"github.com/hitlbot/hitl"
)

// AuthorizeScrape applies the rule of who may scrape /metrics to the
// principal in ctx; a refusal is audited.
func (s *Guard) AuthorizeScrape(ctx context.Context) error {
	p := hitl.PrincipalFrom(ctx)
	if err := s.access.Authorize(p, hitl.ActionScrape, nil); err != nil {
		return s.refused(ctx, p, hitl.ActionScrape, &hitl.Question{}, err)
	}
	return nil
}

// PendingByType counts the pending questions of each type, with the Seq
// of the log they are counted at (the metrics start there). Whoever may
// read stats may.
func (s *Observation) PendingByType(ctx context.Context) (map[hitl.QuestionType]int, uint64, error) {
	p := hitl.PrincipalFrom(ctx)
	if err := s.access.Authorize(p, hitl.ActionStats, nil); err != nil {
		return nil, 0, s.guard.refused(ctx, p, hitl.ActionStats, &hitl.Question{}, err)
	}
	return s.store.PendingByType(ctx)
}
