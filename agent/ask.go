package agent

import (
	"context"
	"time"

	"github.com/hitlbot/hitl"
)

// Ask asks and waits for the outcome, the way an agent usually
// wants it:
//
//   - non_blocking: it returns at once, with the question still pending and
//     its Response set to the default the agent goes on with. A later
//     answer is recorded and streamed as an event, but not returned here.
//   - otherwise it waits (surviving server restarts, see Wait) until the
//     question is settled. A sensitive answer is then received (once; the
//     server scrubs it) so that Response holds the value.
//   - answered: the question and nil.
//   - timed out with a default: the question, whose Response is the
//     default, and nil.
//   - timed out without a default: the question and an *hitl.Error with
//     code hitl.ETIMEDOUT.
//   - cancelled: the question and an *hitl.Error with code hitl.ECANCELLED.
//
// With an IdempotencyKey, calling it again after a crash picks up the same
// question (and its answer, if already given).
func (c *Client) Ask(ctx context.Context, jobID string, n hitl.NewQuestion) (*hitl.Question, error) {
	q, _, err := c.Create(ctx, jobID, n)
	if err != nil {
		return nil, err
	}
	if q.Type == hitl.NonBlocking && q.Pending() {
		if q.DefaultResponse != nil {
			d := *q.DefaultResponse
			q.Response = &d
		}
		return q, nil
	}
	if q.Pending() {
		if q, err = c.Wait(ctx, q.ID); err != nil {
			return q, err
		}
	}
	return c.outcome(ctx, q)
}

// outcome turns a settled question into what Ask returns.
func (c *Client) outcome(ctx context.Context, q *hitl.Question) (*hitl.Question, error) {
	switch q.Status {
	case hitl.StatusAnswered:
		if q.Sensitive && q.Response != nil && q.Response.Redacted {
			return c.Receive(ctx, q.ID)
		}
		return q, nil
	case hitl.StatusTimeout:
		if q.Response == nil {
			return q, &hitl.Error{Code: hitl.ETIMEDOUT, Message: "question " + q.ID + " timed out without an answer", At: formatAt(q)}
		}
		return q, nil
	case hitl.StatusCancelled:
		msg := "question " + q.ID + " was cancelled"
		if q.RespondedBy != "" {
			msg += " by " + q.RespondedBy
		}
		if q.CancelReason != "" {
			msg += ": " + q.CancelReason
		}
		return q, &hitl.Error{Code: hitl.ECANCELLED, Message: msg, By: q.RespondedBy, At: formatAt(q)}
	}
	return q, hitl.Errorf(hitl.EINTERNAL, "question %s is still %s", q.ID, q.Status)
}

func formatAt(q *hitl.Question) string {
	if q.RespondedAt == nil {
		return ""
	}
	return q.RespondedAt.UTC().Format(time.RFC3339)
}
