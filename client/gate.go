package client

import (
	"context"
	"time"

	"github.com/hitlbot/hitl"
)

// Gate asks the policy about req and, when it says ask, waits for the
// people it names, calling p while it waits: the one decide-and-wait of
// hitl gate, the hooks and the MCP tools. The question is created even
// when ctx ends meanwhile, so that when ctx ends during the wait Gate
// returns the result so far, whose QuestionID names the approval still
// pending, with ctx's error: the caller leaves it pending or releases it.
func (c *Client) Gate(ctx context.Context, req hitl.ApprovalRequest, p Progress) (GateResult, error) {
	actx, cancel := Asking(ctx)
	out, err := c.RequestOperation(actx, req)
	cancel()
	if err != nil {
		return GateResult{}, err
	}
	res := GateResult{Decision: out.Decision, Rule: out.Rule, QuestionID: out.QuestionID}
	switch out.Effect {
	case hitl.EffectAllow:
		res.Allowed, res.Outcome = true, hitl.OutcomeApproved
		return res, nil
	case hitl.EffectDeny:
		res.Outcome, res.Message = hitl.OutcomeDenied, "denied by policy rule "+out.Rule
		if why := out.Decision.Explain(); why != "" {
			res.Message += ": " + why
		}
		return res, nil
	}
	if p.Asked != nil {
		p.Asked(out.QuestionID)
	}
	q, err := c.Await(ctx, out.QuestionID, p)
	if err != nil {
		return res, err
	}
	res.Question, res.Outcome, res.By = q, q.Outcome(), q.RespondedBy
	switch res.Outcome {
	case hitl.OutcomeApproved:
		res.Allowed, res.Message = true, q.Response.Text
		if e := q.Response.Edited; e != "" && e != req.Resource {
			res.Edited = e
		}
		if e := q.Response.EditedContent; e != "" && e != req.Content {
			res.EditedContent = e
		}
	case hitl.OutcomeDenied, hitl.OutcomeReplied:
		res.Message = q.Response.Text
	case hitl.OutcomeTimedOut:
		res.TimedOut = true
	case hitl.OutcomeDefaulted:
		res.TimedOut, res.Allowed = true, q.Response.Approved()
	case hitl.OutcomeCancelled:
		res.Message = q.CancelReason
	}
	return res, nil
}

// Await waits until question id is settled, calling p while it waits,
// then takes its outcome: the service marks it received (freeing its
// idempotency key) and hands over a sensitive answer, once. It returns
// ctx's error when ctx ends first, with the question still pending.
func (c *Client) Await(ctx context.Context, id string, p Progress) (*hitl.Question, error) {
	type waited struct {
		q   *hitl.Question
		err error
	}
	done := make(chan waited, 1)
	go func() {
		q, err := c.Wait(ctx, id)
		done <- waited{q, err}
	}()
	var ticks <-chan time.Time
	if p.Tick != nil && p.Every > 0 {
		tk := time.NewTicker(p.Every)
		defer tk.Stop()
		ticks = tk.C
	}
	for {
		select {
		case w := <-done:
			if w.err != nil {
				return w.q, w.err
			}
			if got, err := c.Receive(ctx, id); err == nil {
				return got, nil
			}
			return w.q, nil
		case <-ticks:
			p.Tick()
		}
	}
}

// Progress is called every Every while a wait blocks (an MCP server's
// progress notifications keep its client's request alive). The zero
// Progress never calls.
type Progress struct {
	Every time.Duration
	Tick  func()
	// Asked, when set, is called with the question's id once the policy
	// asked people, before the wait (hitl gate prints it).
	Asked func(questionID string)
}

// GateResult is how an operation was decided: by the policy alone, or by
// the people it asked.
type GateResult struct {
	Allowed bool
	// Outcome is approved or denied when the policy or a person decided,
	// replied when a person answered with text instead (Message holds
	// it: the agent must not carry out the operation, and reads it);
	// timed_out, defaulted or cancelled when nobody did. TimedOut says
	// the approval's time ran out (with or without a default).
	Outcome  hitl.Outcome
	TimedOut bool
	Decision hitl.Decision
	Rule     string // the policy rule that decided or asked
	// QuestionID is the approval people were asked (empty when the policy
	// decided alone); Question the approval as they settled it.
	QuestionID string
	Question   *hitl.Question
	// Edited is the operation's input as the approver changed it, when it
	// differs from what was asked: what the agent must use instead.
	Edited string
	// EditedContent is the new text of a file change as the approver
	// changed it (policy.Operation.Content), when it differs from what was
	// asked: the agent's side shows its diff and asks again before using it.
	EditedContent string
	Message       string // the grant's message, the denial's or cancellation's reason, the reply
	By            string
}

// Asking returns the context a request that asks (creates a question)
// runs in: it finishes even when ctx ends meanwhile (for up to 30 s), so
// that the caller learns the question's id and can leave it pending or
// release it.
func Asking(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
}
