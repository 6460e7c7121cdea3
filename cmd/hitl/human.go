package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/runhandle"
	"github.com/hitlbot/hitl/steer"
)

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

// runHandles is each question's run as people read it: its handle
// (runhandle.Of, what hitl runs shows; --json has the full id), or its id
// when the handle cannot be read.
func runHandles(ctx context.Context, f runhandle.Prefixer, qs []*hitl.Question) map[string]string {
	out := map[string]string{}
	for _, q := range qs {
		if _, ok := out[q.RunID]; ok {
			continue
		}
		h, err := runhandle.Of(ctx, f, q.RunID)
		if err != nil || h == "" {
			h = q.RunID
		}
		out[q.RunID] = h
	}
	return out
}

// runHandle is run id as people read it (runHandles).
func runHandle(ctx context.Context, f runhandle.Prefixer, id string) string {
	return runHandles(ctx, f, []*hitl.Question{{RunID: id}})[id]
}

// answerHint is what the ANSWER WITH column shows: the accepted values,
// or for a secret how to give it without putting it on a command line.
func answerHint(q *hitl.Question) string {
	if q.Sensitive {
		return "secret: " + secretHint(q.ID)
	}
	switch q.ResponseType {
	case hitl.ChoiceResponse:
		labels := make([]string, len(q.Options))
		for i, o := range q.Options {
			labels[i] = o.Value
		}
		if q.MultiSelect {
			return cell("any of "+strings.Join(labels, ","), 30)
		}
		return cell(strings.Join(labels, "|"), 30)
	case hitl.BooleanResponse:
		return "yes|no"
	case hitl.ApprovalResponse:
		return "approve|deny"
	}
	return "text"
}

// secretHint says how to answer a sensitive question: on stdin, hidden.
func secretHint(id string) string {
	return hint("answer "+visible(id)) + ", then type it (hidden)"
}

// valueHint says how to answer question q from a terminal.
func valueHint(q *hitl.Question) string {
	if q.Sensitive {
		return secretHint(q.ID)
	}
	switch q.ResponseType {
	case hitl.ApprovalResponse:
		return hint("answer "+visible(q.ID)) + " approve (or deny, or --reply TEXT)"
	case hitl.BooleanResponse:
		return hint("answer "+visible(q.ID)) + " yes (or no)"
	}
	return hint("answer "+visible(q.ID)) + " VALUE"
}

func cmdAnswer(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("answer", flag.ContinueOnError)
	text := fs.String("text", "", "optional explanation: the message on approve, the reason on deny")
	edit := fs.String("edit", "", "approve an operation with its input edited (a command, path or URL): what the agent will use")
	editContent := fs.String("edit-content", "", "approve a file change with its new text edited (Write's content, Edit's new text, MultiEdit's edits as JSON; - reads it from stdin): the agent shows the edited change's diff and asks again before it runs")
	always := fs.Bool("always", false, "approve and always allow the same request from this agent (a narrow learned rule)")
	reply := fs.String("reply", "", "answer an approval with text for the agent instead of a verdict (not an approval): hitl answer q_123 --reply \"use staging\"")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 1 {
		return usageError(fs, "hitl answer needs a question id and a value: hitl answer q_123 staging")
	}
	c := newClient(e)
	replied := false
	fs.Visit(func(f *flag.Flag) { replied = replied || f.Name == "reply" })
	if replied {
		if len(pos) > 1 || *text != "" || *edit != "" || *editContent != "" || *always {
			return usageError(fs, `--reply is the whole answer: give no value, --text, --edit or --always with it: hitl answer q_123 --reply "use the staging database instead"`)
		}
		q, err := c.Answer(ctx, pos[0], hitl.Response{Type: hitl.ApprovalResponse, Value: hitl.Reply, Text: *reply})
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "Replied to %s (run %s), not approved: %s\n", visible(q.ID), visible(runHandle(ctx, c, q.RunID)), visible(q.Response.Text))
		return nil
	}
	value := strings.Join(pos[1:], " ")
	fromArgs := value != "" && value != "-"
	if *editContent == "-" {
		if !fromArgs {
			return usageError(fs, "--edit-content - reads the new text from stdin: give the answer on the command line: hitl answer q_123 approve --edit-content - < notes.md")
		}
		b, err := io.ReadAll(io.LimitReader(e.stdin, hitl.MaxContentLen+1))
		if err != nil {
			return err
		}
		*editContent = string(b)
	}
	if !fromArgs {
		// Read it from stdin: secrets stay out of shell history.
		q, err := c.Question(ctx, pos[0])
		if err != nil {
			return err
		}
		if value, err = readAnswer(e, q); err != nil {
			return err
		}
	}
	q, err := c.Answer(ctx, pos[0], hitl.Response{Value: value, Text: *text, Edited: *edit, EditedContent: *editContent, Always: *always})
	if err != nil {
		return err
	}
	if fromArgs && q.Sensitive {
		fmt.Fprintf(e.stderr, "hitl: warning: %s is sensitive and its answer was on the command line, so it is now in your shell history; next time run %s\n",
			visible(q.ID), secretHint(q.ID))
	}
	fmt.Fprintf(e.stdout, "Answered %s (run %s): %s\n", visible(q.ID), visible(runHandle(ctx, c, q.RunID)), visible(q.Response.String()))
	if q.Response.EditedContent != "" || q.Response.Edited != "" && q.Operation != nil && len(q.Operation.Diffs) > 0 {
		fmt.Fprintln(e.stdout, "The edited change is not run yet: the agent shows its diff against the file and asks again.")
	}
	return nil
}

func cmdCancel(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("cancel", flag.ContinueOnError)
	reason := fs.String("reason", "", "why, shown to people and to the agent that asked")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError(fs, `hitl cancel needs a question id or a run: hitl cancel q_123 --reason "not needed any more", hitl cancel loop-1`)
	}
	if !questionIDPattern.MatchString(pos[0]) {
		return sendSteer(ctx, e, steer.CommandCancel, pos[0], steer.ControlPayload{})
	}
	c := newClient(e)
	q, err := c.Cancel(ctx, pos[0], *reason)
	if err != nil {
		return err
	}
	line := fmt.Sprintf("Cancelled %s (run %s)", visible(q.ID), visible(runHandle(ctx, c, q.RunID)))
	if q.CancelReason != "" {
		line += ": " + visible(q.CancelReason)
	}
	fmt.Fprintln(e.stdout, line)
	return nil
}
