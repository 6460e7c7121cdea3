package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
)

func cmdHistory(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("history", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError(fs, "hitl history needs one run (its id, or the handle hitl runs shows): hitl history loop-1703123456-12345")
	}
	c := newClient(e)
	id, err := resolveRun(ctx, c, pos[0])
	if err != nil {
		return err
	}
	rs, err := c.RunState(ctx, id)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(e, rs)
	}
	fmt.Fprintf(e.stdout, "Run %s: %s\n", visible(rs.RunID), visible(string(rs.Status)))
	if p := rs.PendingQuestion; p != nil {
		fmt.Fprintf(e.stdout, "Waiting on %s: %s\n", visible(p.QuestionID), cell(p.Question, 100))
		if q, err := c.Question(ctx, p.QuestionID); err == nil {
			for i, l := range operationLines(q.Operation, q.Parts, q.Risks) {
				if i == 0 {
					l = "To approve: " + l
				}
				fmt.Fprintln(e.stdout, "  "+l)
			}
		}
	}
	if len(rs.InteractionHistory) == 0 {
		return nil
	}
	fmt.Fprintln(e.stdout)
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WHEN\tQUESTION\tANSWER\tBY\tOPERATION")
	for _, in := range rs.InteractionHistory {
		answer := in.Answer
		if in.Status != hitl.StatusAnswered {
			answer = strings.TrimSpace(string(in.Status) + " " + answer)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s", in.Timestamp.Local().Format("2006-01-02 15:04:05"), cell(in.Question, 50), cell(answer, 40), cell(auth.PersonName(in.By), 40),
			operationRows(operationLines(in.Operation, in.Parts, nil), 4))
	}
	return tw.Flush()
}

// printJSON prints v as indented JSON, with what a terminal would obey
// escaped (jsonVisible): the same data, safe to look at.
func printJSON(e *env, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := e.stdout.Write(jsonVisible(b.Bytes()))
	return err
}

func orEmpty(qs []*hitl.Question) []*hitl.Question {
	if qs == nil {
		return []*hitl.Question{}
	}
	return qs
}
