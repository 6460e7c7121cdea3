package client

import (
	"context"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
)

// RequestApproval asks for approval of operation (docs/protocol.md#approvals) and waits for
// the decision: Approved (with the grant message, if any), Denied (with the
// reason, if any), Replied (with the person's text) or TimedOut (also when a default was used: the
// question's Response holds it). A cancelled request returns an error with
// code fault.ECANCELLED; other errors are the API's.
func (c *Client) RequestApproval(ctx context.Context, runID, operation string, opts ApprovalOptions) (Decision, error) {
	n := hitl.NewQuestion{
		Question:       operation,
		Type:           hitl.Approval,
		ResponseType:   hitl.ApprovalResponse,
		Context:        opts.Context,
		Assignees:      opts.Assignees,
		Channel:        opts.Channel,
		IdempotencyKey: opts.IdempotencyKey,
	}
	if opts.Timeout > 0 {
		m := opts.Timeout.Minutes()
		n.TimeoutMinutes = &m
	}
	q, err := c.Ask(ctx, runID, n)
	if q == nil {
		return Decision{}, err
	}
	d := Decision{Question: q, By: q.RespondedBy}
	switch {
	case fault.Code(err) == fault.ETIMEDOUT:
		d.Outcome = TimedOut
		return d, nil
	case err != nil:
		return d, err
	}
	switch {
	case q.Status != hitl.StatusTimeout && q.Response == nil:
		return d, fault.Errorf(fault.EINTERNAL, "approval %s is %s without a response", q.ID, q.Status)
	case q.Status == hitl.StatusTimeout: // with a default: still TimedOut
		d.Outcome = TimedOut
	case q.Response.Approved():
		d.Outcome, d.Message = Approved, q.Response.Text
	case q.Response.Replied():
		d.Outcome, d.Reply = Replied, q.Response.Text
	default:
		d.Outcome, d.Reason = Denied, q.Response.Text
	}
	return d, nil
}

// ApprovalOutcome is the result of an approval request (docs/protocol.md#approvals).
type ApprovalOutcome string

// The outcomes of RequestApproval.
const (
	Approved ApprovalOutcome = "Approved"
	Denied   ApprovalOutcome = "Denied"
	TimedOut ApprovalOutcome = "TimedOut"
	// Replied: a person answered with text instead of a verdict
	// (Decision.Reply). The operation is not approved: the agent must not
	// carry it out, and should act on the reply.
	Replied ApprovalOutcome = "Replied"
)

// ApprovalOptions tune an approval request. Zero fields take the service's
// defaults (a 15 minute timeout, the default channel).
type ApprovalOptions struct {
	Context        *hitl.QuestionContext
	Timeout        time.Duration
	Assignees      []string
	Channel        string
	IdempotencyKey string
}

// Decision is how a person decided an approval request.
type Decision struct {
	Outcome  ApprovalOutcome
	Message  string // the message given with a grant
	Reason   string // the reason given with a denial
	Reply    string // the text a person answered with instead of a verdict
	By       string // who decided ("slack:U024BE7LH"); "system" on timeout
	Question *hitl.Question
}
