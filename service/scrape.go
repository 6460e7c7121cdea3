package service

import (
	"context"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
)

// AuthorizeScrape applies the rule of who may scrape /metrics to the
// principal in ctx; a refusal is audited.
func (s *Guard) AuthorizeScrape(ctx context.Context) error {
	p := auth.PrincipalFrom(ctx)
	if err := s.access.Authorize(p, auth.ActionScrape, nil); err != nil {
		return s.refused(ctx, p, auth.ActionScrape, &hitl.Question{}, err)
	}
	return nil
}

// PendingByType counts the pending questions of each type, with the Seq
// of the log they are counted at (the metrics start there). Whoever may
// read stats may.
func (s *Observation) PendingByType(ctx context.Context) (map[hitl.QuestionType]int, uint64, error) {
	p := auth.PrincipalFrom(ctx)
	if err := s.access.Authorize(p, auth.ActionStats, nil); err != nil {
		return nil, 0, s.guard.refused(ctx, p, auth.ActionStats, &hitl.Question{}, err)
	}
	return s.store.PendingByType(ctx)
}
