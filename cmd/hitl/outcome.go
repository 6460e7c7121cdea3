package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/client"
)

// await waits until q is settled (on this terminal too when interactive)
// and takes its outcome with Receive: that frees its idempotency key, so
// the same command asks anew next time, and hands over a secret, once.
// When Receive finds q pending again (the service restarted before a
// sensitive answer reached the agent, and asks for it again) it waits on.
func await(ctx context.Context, c *client.Client, q *hitl.Question, interactive bool, e *env) (*hitl.Question, error) {
	for {
		if q.Pending() {
			var err error
			if interactive {
				q, err = askTerminal(ctx, c, q, e)
			} else {
				q, err = c.Wait(ctx, q.ID)
			}
			if err != nil {
				return nil, err
			}
		}
		got, err := c.Receive(ctx, q.ID)
		if err != nil {
			return nil, err
		}
		if !got.Pending() {
			return got, nil
		}
		fmt.Fprintf(e.stderr, "hitl: the service restarted before the answer to %s reached this command, so it asks again (%s)\n",
			visible(got.ID), answerWhere(ctx, c, got))
		q = got
	}
}

// finish prints a settled question's answer (the value only, on stdout) and
// returns the outcome's exit code.
func finish(q *hitl.Question, e *env) error {
	switch q.Outcome() {
	case hitl.OutcomeCancelled:
		msg := fmt.Sprintf("hitl: question %s was cancelled by %s", visible(q.ID), visible(auth.PersonName(q.RespondedBy)))
		if q.CancelReason != "" {
			msg += ": " + visible(q.CancelReason)
		}
		return &outcome{code: exitCancelled, msg: msg}
	case hitl.OutcomeTimedOut:
		return &outcome{code: exitTimedOut, msg: fmt.Sprintf("hitl: question %s timed out with no answer and no default", visible(q.ID))}
	case hitl.OutcomeDefaulted:
		fmt.Fprintf(e.stderr, "hitl: question %s timed out; using the default\n", visible(q.ID))
	}
	if q.ResponseType == hitl.ApprovalResponse {
		if q.Response.Approved() {
			printValue(e, "approved")
			if q.Response.Text != "" {
				fmt.Fprintf(e.stderr, "message: %s\n", visible(q.Response.Text))
			}
			return nil
		}
		if q.Response.Replied() {
			// The reply is what the agent reads: on stdout, as the value.
			printValue(e, q.Response.Text)
			return &outcome{code: exitDenied, msg: fmt.Sprintf("hitl: not approved: %s replied instead (the reply is on stdout)", visible(q.RespondedBy))}
		}
		printValue(e, "denied")
		msg := fmt.Sprintf("hitl: denied by %s", visible(auth.PersonName(q.RespondedBy)))
		if q.Response.Text != "" {
			msg += ": " + visible(q.Response.Text)
		}
		return &outcome{code: exitDenied, msg: msg}
	}
	printValue(e, q.Response.String())
	if q.Response.Text != "" {
		fmt.Fprintf(e.stderr, "note: %s\n", visible(q.Response.Text))
	}
	return nil
}

// printValue prints a value on stdout for scripts: as is when stdout is a
// pipe or a file, with controls made visible when a person reads it.
func printValue(e *env, s string) {
	if e.stdoutTTY {
		s = visibleLines(s)
	}
	fmt.Fprintln(e.stdout, s)
}

// answerWhere says where q can be answered: in Slack, when the service has
// it on, and from a terminal.
func answerWhere(ctx context.Context, c *client.Client, q *hitl.Question) string {
	if h, err := c.Health(ctx); err == nil && h.Slack {
		return "answer it in Slack, or with: " + valueHint(q)
	}
	return "answer it with: " + valueHint(q)
}

func capitalized(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

func needsInput(ctx context.Context, c *client.Client, q *hitl.Question, key string) error {
	return &outcome{code: exitNeedsInput, msg: fmt.Sprintf(`hitl: waiting for a person to answer question %s (run %s).
  %s
  Then re-run this same command (idempotency key %s) to get the answer.`,
		visible(q.ID), visible(q.RunID), capitalized(answerWhere(ctx, c, q)), visible(key))}
}

// interrupted is Ctrl+C: the question, when there is one, stays pending,
// and the message repeats its id.
func interrupted(q *hitl.Question, key string) error {
	var msg string
	switch {
	case q == nil:
		msg = "hitl: interrupted; if the question was asked, it stays pending (see " + hint("pending") + ")."
	case q.Pending():
		msg = fmt.Sprintf("hitl: interrupted; %s stays pending. To answer it: %s", visible(q.ID), valueHint(q))
	default:
		msg = fmt.Sprintf("hitl: interrupted before the outcome of %s was taken.", visible(q.ID))
	}
	if key != "" {
		msg += fmt.Sprintf("\n  Re-run with --key %s to pick up its answer.", visible(key))
	}
	return &outcome{code: exitInterrupted, msg: msg}
}
