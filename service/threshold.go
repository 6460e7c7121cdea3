package service

import (
	"context"
	"fmt"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
)

// ValidateThreshold is steer.ValidateThreshold, for the callers that still
// reach it here (agent/, cmd/hitl's subcommands: issue 36 item 3 moves them).
func ValidateThreshold(key string, n int) error { return steer.ValidateThreshold(key, n) }

// ThresholdInstruction is what an agent at level n is told about asking,
// in hitl's own words. The CLI prints it (hitl prompt) and the MCP tools
// carry it in their descriptions.
func ThresholdInstruction(n int) string {
	head := fmt.Sprintf("Interaction threshold: %d of 5. ", n)
	switch {
	case n <= 0:
		return head + "Do not ask a person anything: decide on your own judgement, note the assumptions you made, and keep going. " +
			"Approvals for risky operations are still requested through the approval tools."
	case n <= 2:
		return head + "Work autonomously. Ask a person only when you are blocked: the task cannot go on without a fact only they have, " +
			"or an action could lose data or money and is not clearly asked for. Batch what you need into one short question with options."
	case n == 3:
		return head + "Ask when a choice changes what the user gets and the task does not settle it: public interfaces, data migrations, " +
			"dependencies, anything hard to undo. Make routine decisions yourself. Offer options and say which you would pick."
	default:
		return head + "Collaborate closely. Before any decision with more than one reasonable answer, or any change outside the obvious scope, " +
			"ask a person and wait. Prefer short questions with options; while waiting, do nothing that the answer could change."
	}
}

// UnsetInstruction is what an agent is told when no threshold is set.
const UnsetInstruction = "No interaction threshold is set. Ask a person when their answer would change what you do and you cannot " +
	"find it out yourself; decide routine matters on your own. Prefer short questions with options."

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
		if err := steer.ValidateThreshold("interactionThreshold", *n); err != nil {
			return nil, err
		}
	}
	p := auth.PrincipalFrom(ctx)
	if _, err := s.store.Run(ctx, id); fault.Code(err) == fault.ENOTFOUND {
		if err := s.guard.Throttle(ctx, LimitRuns); err != nil { // it starts a run
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
