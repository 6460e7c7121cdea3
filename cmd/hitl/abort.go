package main

import (
	"context"

	"github.com/hitlbot/hitl/steer"
)

func cmdAbort(ctx context.Context, args []string, e *env) error {
	return endRun(ctx, args, e, "abort", steer.StateAbort)
}
