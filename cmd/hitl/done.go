package main

import (
	"context"

	"github.com/hitlbot/hitl/steer"
)

// cmdDone is hitl done: a loop reports its run finished.
func cmdDone(ctx context.Context, args []string, e *env) error {
	return endRun(ctx, args, e, "done", steer.StateDone)
}
