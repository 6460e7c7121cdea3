package main

import (
	"context"
	"flag"
	"strings"

	"github.com/hitlbot/hitl/steer"
)

// cmdEscalate is hitl escalate: asks a run to switch to another model
// (--model), saying why.
func cmdEscalate(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("escalate", flag.ContinueOnError)
	model := fs.String("model", "", "the model to switch to, like opus (required)")
	reason := fs.String("reason", "", "why, shown to the agent and to people")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || strings.TrimSpace(*model) == "" {
		return usageError(fs, `hitl escalate needs a run and a model: hitl escalate loop-1 --model opus --reason "stuck on type inference"`)
	}
	return sendSteer(ctx, e, steer.CommandEscalate, pos[0], steer.ControlPayload{Model: *model, Reason: *reason})
}
