package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/hitlbot/hitl"
)

// cmdAnswer is hitl answer: a person's answer to a question (a value,
// text, an edit, a reply, or approving always).
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
