package client

import (
	"context"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
)

// Ask asks and waits for the outcome, the way an agent usually
// wants it:
//
//   - non_blocking: it returns at once, with the question still pending and
//     its Response set to the default the agent goes on with. A later
//     answer is recorded and streamed as an event, but not returned here.
//   - otherwise it waits (surviving server restarts, see Wait) until the
//     question is settled, then takes the outcome (Receive): the server
//     marks it received and frees its idempotency key, and a sensitive
//     answer is handed over (once; the server scrubs it). Should the server
//     have lost a sensitive answer to a restart, the question is asked
//     again and Ask keeps waiting.
//   - answered: the question and nil.
//   - timed out with a default: the question, whose Response is the
//     default, and nil.
//   - timed out without a default: the question and a *fault.Error with
//     code fault.ETIMEDOUT.
//   - cancelled: the question and a *fault.Error with code fault.ECANCELLED.
//
// With an IdempotencyKey, calling it again after a crash picks up the same
// question (and its answer, if already given) until Ask has returned its
// outcome; after that the same key asks a new question.
func (c *Client) Ask(ctx context.Context, runID string, n hitl.NewQuestion) (*hitl.Question, error) {
	q, _, err := c.Create(ctx, runID, n)
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
	for {
		if q.Pending() {
			if q, err = c.Wait(ctx, q.ID); err != nil {
				return q, err
			}
		}
		got, err := c.take(ctx, q.ID)
		if err != nil {
			return q, err
		}
		if got.Pending() {
			q = got // the answer was lost and the question asked again
			continue
		}
		return outcome(got)
	}
}

// take receives the outcome of settled question id, retrying like Wait
// while the server cannot be reached.
func (c *Client) take(ctx context.Context, id string) (*hitl.Question, error) {
	b := backoff{min: c.minBackoff, max: c.maxBackoff}
	for {
		q, err := c.Receive(ctx, id)
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err == nil || !retryable(err):
			return q, err
		}
		if err := b.sleep(ctx); err != nil {
			return nil, err
		}
	}
}

// outcome turns a settled, received question into what Ask returns.
func outcome(q *hitl.Question) (*hitl.Question, error) {
	switch q.Status {
	case hitl.StatusAnswered:
		return q, nil
	case hitl.StatusTimeout:
		if q.Response == nil {
			return q, &fault.Error{Code: fault.ETIMEDOUT, Message: "question " + q.ID + " timed out without an answer", At: formatAt(q)}
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
		return q, &fault.Error{Code: fault.ECANCELLED, Message: msg, By: q.RespondedBy, At: formatAt(q)}
	}
	return q, fault.Errorf(fault.EINTERNAL, "question %s is still %s", q.ID, q.Status)
}

func formatAt(q *hitl.Question) string {
	if q.RespondedAt == nil {
		return ""
	}
	return q.RespondedAt.UTC().Format(time.RFC3339)
}
