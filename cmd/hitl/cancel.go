package main

import (
	"context"
	"flag"
	"fmt"
	"regexp"

	"github.com/hitlbot/hitl/steer"
)

// cmdCancel is hitl cancel: cancels a question (with a reason), or asks
// a run to stop when given a run.
func cmdCancel(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("cancel", flag.ContinueOnError)
	reason := fs.String("reason", "", "why, shown to people and to the agent that asked")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError(fs, `hitl cancel needs a question id or a run: hitl cancel q_123 --reason "not needed any more", hitl cancel loop-1`)
	}
	if !questionIDPattern.MatchString(pos[0]) {
		return sendSteer(ctx, e, steer.CommandCancel, pos[0], steer.ControlPayload{})
	}
	c := newClient(e)
	q, err := c.Cancel(ctx, pos[0], *reason)
	if err != nil {
		return err
	}
	line := fmt.Sprintf("Cancelled %s (run %s)", visible(q.ID), visible(runHandle(ctx, c, q.RunID)))
	if q.CancelReason != "" {
		line += ": " + visible(q.CancelReason)
	}
	fmt.Fprintln(e.stdout, line)
	return nil
}

// questionIDPattern tells a question id (q_ and 16 base32 characters)
// from a run id, for hitl cancel.
var questionIDPattern = regexp.MustCompile(`^q_[0-9a-z]{16}$`)
