package mcp

import (
	"context"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/agent"
)

// Verdict is how an operation an agent asked about was decided.
type Verdict struct {
	Allowed bool
	// Outcome is approved or denied when the policy or a person decided;
	// timed_out, defaulted or cancelled when nobody did.
	Outcome hitl.Outcome
	Rule    string // the policy rule that decided or asked
	// Edited is the operation's input as the approver changed it: what
	// the agent must use instead.
	Edited  string
	Message string // the grant's message or the denial's reason
	By      string
	// QuestionID is the approval people were asked, if any.
	QuestionID string
}

// Decide asks the policy about req and, when it says ask, waits for the
// people it names (the same as agent.Client.Gate). When ctx ends first it
// returns the verdict so far, whose QuestionID names the approval still
// pending, and ctx's error: the caller leaves it pending or releases it.
func Decide(ctx context.Context, c *agent.Client, req hitl.ApprovalRequest, t Ticker) (Verdict, error) {
	actx, cancel := asking(ctx)
	out, err := c.RequestOperation(actx, req)
	cancel()
	if err != nil {
		return Verdict{}, err
	}
	v := Verdict{Rule: out.Rule, QuestionID: out.QuestionID}
	switch out.Effect {
	case hitl.EffectAllow:
		v.Allowed, v.Outcome = true, hitl.OutcomeApproved
		return v, nil
	case hitl.EffectDeny:
		v.Outcome, v.Message = hitl.OutcomeDenied, "denied by policy rule "+out.Rule
		return v, nil
	}
	q, err := Await(ctx, c, out.QuestionID, t)
	if err != nil {
		return v, err
	}
	v.Outcome, v.By = q.Outcome(), q.RespondedBy
	switch v.Outcome {
	case hitl.OutcomeApproved:
		v.Allowed, v.Message = true, q.Response.Text
		if e := q.Response.Edited; e != "" && e != req.Resource {
			v.Edited = e
		}
	case hitl.OutcomeDenied:
		v.Message = q.Response.Text
	case hitl.OutcomeDefaulted:
		v.Allowed = q.Response.Approved()
	case hitl.OutcomeCancelled:
		v.Message = q.CancelReason
	}
	return v, nil
}
