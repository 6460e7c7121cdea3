package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/hitlbot/hitl"
)

// cmdPrompt is hitl prompt: the instruction of an interaction threshold
// (--threshold, or the run's own), for an agent's prompt.
func cmdPrompt(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("prompt", flag.ContinueOnError)
	level := fs.Int("threshold", -1, "the interaction threshold, 0-5")
	run := fs.String("run", e.getenv("HITL_RUN"), "the run whose threshold applies (HITL_RUN)")
	if _, err := parseArgs(fs, args); err != nil {
		return err
	}
	if *level >= 0 {
		if err := hitl.ValidateThreshold("--threshold", *level); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, hitl.ThresholdInstruction(*level))
		return nil
	}
	text, err := newClient(e).ThresholdInstruction(ctx, *run)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, text)
	return nil
}
