package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/hitlbot/hitl/steer"
)

// cmdStatus is hitl status: one run in full.
func cmdStatus(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError(fs, "hitl status needs one run (its id, or the handle hitl runs shows): hitl status loop-1")
	}
	c := newClient(e)
	id, err := resolveRun(ctx, c, pos[0])
	if err != nil {
		return err
	}
	run, err := c.RunRecord(ctx, id)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(e, run)
	}
	ctl := run.Control
	fmt.Fprintf(e.stdout, "Run %s: %s, iteration %s, model %s\n", visible(run.ID), runState(run), iteration(run), visible(orDash(ctl.Model)))
	if s := ctl.Session; s != nil {
		fmt.Fprintf(e.stdout, "%s session in %s", visible(s.Agent), visible(orDash(s.CWD)))
		if s.AgentVersion != "" {
			fmt.Fprintf(e.stdout, " (version %s)", visible(s.AgentVersion))
		}
		fmt.Fprintln(e.stdout)
		if s.Title != "" {
			fmt.Fprintf(e.stdout, "First prompt: %s\n", cell(s.Title, steer.MaxTitleLen))
		}
		if w := s.Outdated(); w != "" {
			fmt.Fprintf(e.stdout, "Warning: %s\n", w)
		}
	} else if ctl.IssueID != "" || ctl.Mode != "" {
		fmt.Fprintf(e.stdout, "Issue %s, mode %s\n", visible(orDash(ctl.IssueID)), visible(orDash(ctl.Mode)))
	}
	if ctl.Reason != "" {
		fmt.Fprintf(e.stdout, "Ended: %s\n", visible(ctl.Reason))
	}
	if ctl.EscalationReason != "" {
		fmt.Fprintf(e.stdout, "Escalated: %s\n", visible(ctl.EscalationReason))
	}
	if ctl.Instruction != "" {
		fmt.Fprintf(e.stdout, "Instruction waiting for the next iteration: %s\n", visible(ctl.Instruction))
	}
	if ctl.LastStateAt != nil {
		fmt.Fprintf(e.stdout, "Last report: %s\n", ctl.LastStateAt.Local().Format("2006-01-02 15:04:05"))
	}
	fmt.Fprintf(e.stdout, "Questions: %d, %d pending\n", run.Questions, run.Pending)
	if run.Questions == 0 {
		return nil
	}
	return cmdHistory(ctx, []string{run.ID}, e)
}
