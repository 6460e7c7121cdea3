package mcp

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/hook"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// newQuestion turns ask_human's input into the question to ask (seed
// 002's prompt, input_type and sensitive: docs/protocol.md#questions).
func (in askInput) newQuestion(agent, key string) hitl.NewQuestion {
	n := hitl.NewQuestion{Question: in.Prompt, Type: hitl.QuestionType(in.Type), Sensitive: in.Sensitive,
		InputType: hitl.InputType(in.InputType), Context: &hitl.QuestionContext{Agent: agent}, IdempotencyKey: key}
	switch in.InputType {
	case string(hitl.ConfirmationInput):
		n.ResponseType = hitl.BooleanResponse
	case string(hitl.PasswordInput):
		n.Sensitive = true
	}
	if n.Sensitive {
		n.InputType = hitl.PasswordInput
	}
	for _, o := range in.Options {
		n.Options = append(n.Options, hitl.Option{Label: o, Value: o})
	}
	if in.TimeoutMinutes > 0 {
		m := in.TimeoutMinutes
		n.TimeoutMinutes = &m
	}
	if in.Default != "" {
		n.DefaultResponse = &hitl.Response{Value: in.Default}
	}
	return n
}

func (s *Server) askHuman(ctx context.Context, req *sdk.CallToolRequest, in askInput) (*sdk.CallToolResult, Reply, error) {
	actx, cancel := client.Asking(ctx)
	q, _, err := s.opts.Client.Create(actx, s.opts.Run, in.newQuestion(agentName(req), s.key(req)))
	cancel()
	if err != nil {
		return nil, Reply{}, err
	}
	if q.Type == hitl.NonBlocking && q.Pending() {
		r := Reply{Status: string(hitl.OutcomePending), QuestionID: q.ID, Answer: q.DefaultResponse.String(),
			Note: "non_blocking: go on with this default; a later answer is recorded (get_answer)"}
		return text(fmt.Sprintf("Going on with the default %q; question %s stays open (get_answer picks up a later answer).", r.Answer, q.ID)), r, nil
	}
	return s.awaitReply(ctx, req, q.ID)
}

// getAnswer says at once how question_id stands: its answer, or pending;
// with wait_seconds it first waits up to that long (MaxWait at most),
// sending progress while it does.
func (s *Server) getAnswer(ctx context.Context, req *sdk.CallToolRequest, in answerInput) (*sdk.CallToolResult, Reply, error) {
	if in.WaitSeconds < 0 || in.WaitSeconds > maxWaitSeconds {
		return nil, Reply{}, fmt.Errorf("wait_seconds must be between 0 and %d", maxWaitSeconds)
	}
	if in.WaitSeconds == 0 {
		q, err := s.opts.Client.Question(ctx, in.QuestionID)
		if err != nil {
			return nil, Reply{}, err
		}
		if q.Pending() {
			r := Reply{Status: string(hitl.OutcomePending), QuestionID: q.ID}
			return text(pendingText(q.ID, "ask_human")), r, nil
		}
		return s.awaitReply(ctx, req, in.QuestionID) // settled: takes its outcome at once
	}
	return s.awaitFor(ctx, req, in.QuestionID, time.Duration(in.WaitSeconds*float64(time.Second)))
}

// maxWaitSeconds bounds get_answer's wait_seconds.
const maxWaitSeconds = 600

// awaitReply waits for question id (progress, MaxWait) and says how it
// ended.
func (s *Server) awaitReply(ctx context.Context, req *sdk.CallToolRequest, id string) (*sdk.CallToolResult, Reply, error) {
	return s.awaitFor(ctx, req, id, s.opts.MaxWait)
}

// awaitFor is awaitReply giving up after wait (MaxWait at most; a
// settled question returns at once whatever wait is).
func (s *Server) awaitFor(ctx context.Context, req *sdk.CallToolRequest, id string, wait time.Duration) (*sdk.CallToolResult, Reply, error) {
	wctx, cancel, tick := s.waiting(ctx, req, "waiting for a person to answer "+id)
	defer cancel()
	if wait < s.opts.MaxWait {
		var stop context.CancelFunc
		wctx, stop = context.WithTimeoutCause(wctx, max(wait, 0), hook.ErrStillPending)
		defer stop()
	}
	q, err := s.opts.Client.Await(wctx, id, tick)
	switch {
	case err != nil && hook.GaveUp(wctx) && ctx.Err() == nil:
		r := Reply{Status: string(hitl.OutcomePending), QuestionID: id}
		return text(pendingText(id, "ask_human")), r, nil
	case err != nil:
		return nil, Reply{}, s.stopped(ctx, id, err)
	}
	r := Reply{Status: string(q.Outcome()), QuestionID: q.ID, AnsweredBy: q.RespondedBy}
	if q.Response != nil {
		r.Answer, r.Note = q.Response.String(), q.Response.Text
		if q.Response.Edited != "" {
			if r.Note != "" {
				r.Note += "\n"
			}
			r.Note += "edited to: " + q.Response.Edited
		}
	}
	var msg string
	switch q.Outcome() {
	case hitl.OutcomeReplied:
		r.Answer = hitl.Reply
		msg = fmt.Sprintf("Not approved: %s replied instead: %s", q.RespondedBy, r.Note)
	case hitl.OutcomeAnswered, hitl.OutcomeApproved, hitl.OutcomeDenied:
		msg = fmt.Sprintf("Answer from %s: %s", q.RespondedBy, r.Answer)
		if r.Note != "" {
			msg += "\nTheir note: " + r.Note
		}
	case hitl.OutcomeDefaulted:
		msg = "Nobody answered in time; the default applies: " + r.Answer
	case hitl.OutcomeTimedOut:
		msg = "Nobody answered in time and there is no default: decide on your own judgement and say what you assumed."
	case hitl.OutcomeCancelled:
		r.Note = q.CancelReason
		msg = "The question was cancelled: " + cmp.Or(q.CancelReason, "no reason given") + ". Do not wait for it."
	}
	return text(msg), r, nil
}

// pendingText tells the model how to pick up a question still open.
func pendingText(id, tool string) string {
	return fmt.Sprintf("Still pending: question %s waits for a person. Call get_answer with question_id %q later, "+
		"or call %s again with exactly the same arguments to keep waiting (no second message is sent).", id, id, tool)
}
