package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hitlbot/hitl"
)

func cmdPending(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("pending", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	run := fs.String("run", "", "only this run's questions")
	if _, err := parseArgs(fs, args); err != nil {
		return err
	}
	qs, err := newClient(e).Questions(ctx, hitl.QuestionFilter{Status: hitl.StatusPending, JobID: *run})
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(e, map[string]any{"questions": orEmpty(qs)})
	}
	if len(qs) == 0 {
		fmt.Fprintln(e.stdout, "No questions are waiting.")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tRUN\tTYPE\tANSWER WITH\tDUE\tQUESTION")
	now := time.Now()
	for _, q := range qs {
		due := "never"
		if q.TimeoutAt != nil {
			due = "in " + q.TimeoutAt.Sub(now).Round(time.Second).String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", q.ID, q.JobID, q.Type, answerHint(q), due, oneLine(q.Question, 60))
	}
	return tw.Flush()
}

func answerHint(q *hitl.Question) string {
	switch q.ResponseType {
	case hitl.ChoiceResponse:
		labels := make([]string, len(q.Options))
		for i, o := range q.Options {
			labels[i] = o.Value
		}
		return oneLine(strings.Join(labels, "|"), 30)
	case hitl.BooleanResponse:
		return "yes|no"
	case hitl.ApprovalResponse:
		return "approve|deny"
	}
	if q.Sensitive {
		return "text (secret)"
	}
	return "text"
}

func cmdAnswer(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("answer", flag.ContinueOnError)
	text := fs.String("text", "", "optional explanation: the message on approve, the reason on deny")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 1 {
		return usageError(fs, "hitl answer needs a question id and a value: hitl answer q_123 staging")
	}
	c := newClient(e)
	value := strings.Join(pos[1:], " ")
	if value == "" || value == "-" {
		// Read it from stdin: secrets stay out of shell history.
		q, err := c.Question(ctx, pos[0])
		if err != nil {
			return err
		}
		if value, err = readAnswer(e, q); err != nil {
			return err
		}
	}
	q, err := c.Answer(ctx, pos[0], hitl.Response{Value: value, Text: *text})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Answered %s (run %s): %s\n", q.ID, q.JobID, q.Response.String())
	return nil
}

func cmdHistory(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("history", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError(fs, "hitl history needs one run id: hitl history loop-1703123456-12345")
	}
	rs, err := newClient(e).RunState(ctx, pos[0])
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(e, rs)
	}
	fmt.Fprintf(e.stdout, "Run %s: %s\n", rs.RunID, rs.Phase)
	if p := rs.PendingQuestion; p != nil {
		fmt.Fprintf(e.stdout, "Waiting on %s: %s\n", p.QuestionID, oneLine(p.Question, 100))
	}
	if len(rs.InteractionHistory) == 0 {
		return nil
	}
	fmt.Fprintln(e.stdout)
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WHEN\tQUESTION\tANSWER\tBY")
	for _, in := range rs.InteractionHistory {
		answer := in.Answer
		if in.Status != hitl.StatusAnswered {
			answer = strings.TrimSpace(string(in.Status) + " " + answer)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", in.Timestamp.Local().Format("2006-01-02 15:04:05"), oneLine(in.Question, 50), oneLine(answer, 40), in.By)
	}
	return tw.Flush()
}

func printJSON(e *env, v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func orEmpty(qs []*hitl.Question) []*hitl.Question {
	if qs == nil {
		return []*hitl.Question{}
	}
	return qs
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
