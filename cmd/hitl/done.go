package main

import (
	"context"

	"github.com/hitlbot/hitl/steer"
)

func cmdDone(ctx context.Context, args []string, e *env) error {
	return endRun(ctx, args, e, "done", steer.StateDone)
}
