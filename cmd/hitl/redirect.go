package main

import (
	"context"
	"flag"
	"strings"

	"github.com/hitlbot/hitl/steer"
)

// cmdRedirect is hitl redirect: sends a run a new instruction.
func cmdRedirect(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("redirect", flag.ContinueOnError)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return usageError(fs, `hitl redirect needs a run and an instruction: hitl redirect loop-1 "use the v2 API instead"`)
	}
	return sendSteer(ctx, e, steer.CommandRedirect, pos[0], steer.ControlPayload{Instruction: strings.Join(pos[1:], " ")})
}
