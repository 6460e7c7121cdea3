package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
)

// cmdReassign hands a question to other people: hitl reassign ID TO…
func cmdReassign(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("reassign", flag.ContinueOnError)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return usageError(fs, "hitl reassign needs a question id and whom to hand it to: hitl reassign q_123 U024BE7LH [S0614TZR7…]")
	}
	var to []string
	for _, a := range pos[1:] {
		to = append(to, strings.Split(a, ",")...)
	}
	q, err := newClient(e).Reassign(ctx, pos[0], to)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Handed %s (run %s) to %s\n", visible(q.ID), visible(q.RunID), visible(strings.Join(q.Assignees, ", ")))
	return nil
}
