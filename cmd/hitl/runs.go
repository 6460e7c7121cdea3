package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"text/tabwriter"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/steer"
)

// cmdRuns is hitl runs: the runs as rows (their handle, state, issue or
// task, iteration, model, what they wait on); hitl status shares the row's
// words.
func cmdRuns(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("runs", flag.ContinueOnError)
	all := fs.Bool("all", false, "finished runs too")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parseArgs(fs, args); err != nil {
		return err
	}
	c := newClient(e)
	var runs []*hitl.Run
	handles := map[string]string{}
	cursor := ""
	for {
		page, err := c.Runs(ctx, !*all, hitl.MaxPageSize, cursor)
		if err != nil {
			return err
		}
		runs = append(runs, page.Runs...)
		maps.Copy(handles, page.Handles)
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	if *asJSON {
		if runs == nil {
			runs = []*hitl.Run{}
		}
		return printJSON(e, map[string]any{"runs": runs, "handles": handles})
	}
	if len(runs) == 0 {
		fmt.Fprintf(e.stdout, "No run is going on or waiting for a person. (%s lists finished ones too.)\n", hint("runs --all"))
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tTASK\tSTATE\tITER\tMODEL\tWAITING ON")
	for _, r := range runs {
		handle := handles[r.ID]
		if handle == "" {
			handle = r.ID
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", visible(handle), cell(orDash(issueOrTask(r)), 20), runState(r),
			iteration(r), cell(orDash(r.Control.Model), 20), waitingOn(r))
	}
	return tw.Flush()
}

func runState(r *hitl.Run) string {
	st := string(r.Control.Status)
	if st == "" {
		st = "asking" // no agent reports on it: it only asks questions
	}
	if p := r.Status(); p == steer.RunWaitingForInput || p == steer.RunWaitingForApproval {
		st += " (" + string(p) + ")"
	}
	if s := r.Control.Session; s != nil && r.Control.Status.Active() {
		switch {
		case s.Held != "":
			st += " (held at " + visible(string(s.Held)) + ")"
		case r.Control.Status == steer.RunPaused:
			st += " (queued for the next hook call)"
		case s.Idle:
			st += " (idle)"
		}
	}
	return st
}

// issueOrTask is the loop's issue, or a session's task (its first prompt).
func issueOrTask(r *hitl.Run) string {
	if s := r.Control.Session; r.Control.IssueID == "" && s != nil {
		return s.Title
	}
	return r.Control.IssueID
}

// iteration is the run's iteration by the root's one rule (the one hitl
// pause's RESULT names), or "-".
func iteration(r *hitl.Run) string { return orDash(r.Control.Iteration()) }

func waitingOn(r *hitl.Run) string {
	if r.WaitingOn == nil {
		return "-"
	}
	return visible(r.WaitingOn.QuestionID) + " " + cell(r.WaitingOn.Question, 40)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
