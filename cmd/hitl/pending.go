package main

import (
	"context"
	"flag"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/hitlbot/hitl"
)

// cmdPending is hitl pending: the questions waiting for people, oldest
// first (or by deadline), with how to answer each.
func cmdPending(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("pending", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	run := fs.String("run", "", "only this run's questions")
	all := fs.Bool("all", false, "every pending question, page after page (default: the first 100)")
	order := fs.String("order", string(hitl.OrderCreated), "created (oldest first) or deadline (soonest deadline first, those that never time out last)")
	_, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	c := newClient(e)
	if *run != "" {
		if *run, err = resolveRun(ctx, c, *run); err != nil {
			return err
		}
	}
	f := hitl.QuestionFilter{Status: hitl.StatusPending, RunID: *run}
	if err := f.OrderBy(hitl.ListOrder(*order)); err != nil {
		return err
	}
	page, err := c.QuestionPage(ctx, f)
	if err != nil {
		return err
	}
	qs := page.Questions
	for *all && page.NextCursor != "" {
		f.Cursor = page.NextCursor
		if page, err = c.QuestionPage(ctx, f); err != nil {
			return err
		}
		qs = append(qs, page.Questions...)
	}
	if *asJSON {
		out := map[string]any{"questions": orEmpty(qs)}
		if page.NextCursor != "" {
			out["nextCursor"] = page.NextCursor
		}
		return printJSON(e, out)
	}
	defer func() {
		switch {
		case page.NextCursor == "":
		case page.Total > len(qs):
			fmt.Fprintf(e.stdout, "…and %d more: %s\n", page.Total-len(qs), hint("pending --all"))
		default:
			fmt.Fprintln(e.stdout, "…and more: "+hint("pending --all"))
		}
	}()
	if len(qs) == 0 {
		fmt.Fprintln(e.stdout, "No questions are waiting.")
		return nil
	}
	handles := runHandles(ctx, c, qs)
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tRUN\tTYPE\tANSWER WITH\tDUE\tQUESTION\tOPERATION")
	now := time.Now()
	for _, q := range qs {
		due := "never"
		if q.TimeoutAt != nil {
			due = "in " + q.TimeoutAt.Sub(now).Round(time.Second).String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s", cell(q.ID, 40), cell(handles[q.RunID], 40), cell(string(q.Type), 20), answerHint(q), due, cell(q.Question, 60),
			operationRows(operationLines(q.Operation, q.Parts, q.Risks), 6))
	}
	return tw.Flush()
}
