package service

import (
	"context"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
)

// thresholdOf is the threshold that applies to run: its own, or the
// service's default (nil: none).
func (s *Runs) thresholdOf(run *hitl.Run) *int { return thresholdOf(run, s.threshold) }

// thresholdOf is the threshold that applies to run: its own, or def, the
// service's default (nil: none).
func thresholdOf(run *hitl.Run, def *int) *int {
	if run != nil && run.Control.Threshold != nil {
		return run.Control.Threshold
	}
	return def
}

// refuseByThreshold refuses a question (not an approval) of run runID
// whose threshold is t (thresholdOf) when it is 0.
func refuseByThreshold(runID string, t *int, q *hitl.Question) error {
	if q.Type == hitl.Approval {
		return nil
	}
	if t != nil && *t == 0 {
		return fault.Errorf(fault.EREFUSED, "run %s has interaction threshold 0: do not ask; proceed on your own judgement and note your assumptions (approvals are still allowed)", runID)
	}
	return nil
}

// SetThreshold sets run id's own interaction threshold (nil: back to the
// service's default), registering the run if it is new. The run's owner
// or a controller may (Access.AuthorizeRun); an agent setting it on a run
// nobody started starts it.
func (s *Runs) SetThreshold(ctx context.Context, id string, n *int) (*hitl.Run, error) {
	if err := steer.ValidateRunID(id); err != nil {
		return nil, err
	}
	if n != nil {
		if err := hitl.ValidateThreshold("interactionThreshold", *n); err != nil {
			return nil, err
		}
	}
	p := auth.PrincipalFrom(ctx)
	if _, err := s.store.Run(ctx, id); fault.Code(err) == fault.ENOTFOUND {
		if err := s.guard.Throttle(ctx, hitl.LimitRuns); err != nil { // it starts a run
			return nil, err
		}
	}
	var refusal error
	run, err := s.store.UpdateRun(ctx, id, s.hookRun(func(run *hitl.Run) (hitl.RunUpdate, error) {
		now := s.clock.Now()
		if refusal = s.access.AuthorizeRun(p, auth.ActionThreshold, id, run); refusal != nil {
			return hitl.RunUpdate{}, refusal
		}
		if run == nil {
			run = &hitl.Run{ID: id, CreatedAt: now}
		}
		r := *run
		if r.Asker == "" && !p.Has(auth.ScopeControl) {
			// An agent setting its own run's threshold starts the run; a
			// controller presets it for whoever starts it.
			r.Asker, r.AskerUser = p.ID, p.SlackUser
		}
		r.UpdatedAt = now
		if n != nil {
			v := *n
			r.Control.Threshold = &v
		} else {
			r.Control.Threshold = nil
		}
		return hitl.RunUpdate{Run: &r}, nil
	}))
	if refusal != nil && err == refusal {
		return nil, s.guard.refused(ctx, p, auth.ActionThreshold, &hitl.Question{RunID: id}, refusal)
	}
	if err != nil {
		return nil, err
	}
	s.notifier.Publish(runKey(id))
	return run, nil
}
