package main

import (
	"context"

	"github.com/hitlbot/hitl/steer"
)

// cmdAbort is hitl abort: a loop reports its run given up.
func cmdAbort(ctx context.Context, args []string, e *env) error {
	return endRun(ctx, args, e, "abort", steer.StateAbort)
}
