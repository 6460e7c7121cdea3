package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
)

// cmdShow prints one question whole, as a person needs it to decide: its
// text, the run, the operation and how the policy decided, the agent's
// context, every file change's diff (coloured on a terminal, plain in a
// pipe), and how to answer it or how it was settled.
func cmdShow(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("show", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the question as JSON")
	color := fs.String("color", "auto", "colour the diff: auto (on a terminal, unless NO_COLOR is set), always or never")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError(fs, "hitl show needs one question id: hitl show q_0123456789abcdef")
	}
	var paint bool
	switch *color {
	case "auto":
		paint = e.stdoutTTY && e.getenv("NO_COLOR") == ""
	case "always":
		paint = true
	case "never":
	default:
		return usageError(fs, fmt.Sprintf("--color is auto, always or never, not %q", *color))
	}
	c := newClient(e)
	q, err := c.Question(ctx, pos[0])
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(e, q)
	}
	showQuestion(e.stdout, q, runHandles(ctx, c, []*hitl.Question{q})[q.RunID], time.Now(), paint)
	return nil
}

// showQuestion writes q for a person, its run by run (its handle: the
// full id is in --json); paint colours the diff.
func showQuestion(w io.Writer, q *hitl.Question, run string, now time.Time, paint bool) {
	state := string(q.Status)
	if q.Pending() && q.TimeoutAt != nil {
		state += ", due in " + q.TimeoutAt.Sub(now).Round(time.Second).String()
	}
	fmt.Fprintf(w, "%s · %s · %s\n", visible(q.ID), visible(string(q.Type)), state)
	fmt.Fprintf(w, "Run: %s", visible(run))
	if q.Context != nil && q.Context.Agent != "" {
		fmt.Fprintf(w, " · asked by %s", visible(q.Context.Agent))
	}
	fmt.Fprintf(w, " · %s\n\n", q.CreatedAt.UTC().Format("2006-01-02 15:04:05 UTC"))
	fmt.Fprintln(w, visibleLines(q.Question))
	if f := flagged("The question", q.Question); f != "" {
		fmt.Fprintln(w, colored(paint, ansiRed, f))
	}
	op := q.Operation
	if op != nil {
		fmt.Fprintln(w)
		lines := operationLines(op, q.Parts, q.Risks)
		fmt.Fprintln(w, "Operation: "+lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintln(w, l)
		}
		if q.RunGrant != nil {
			fmt.Fprintln(w, "When it runs: "+visible(q.RunGrant.Text()))
		}
		if op.Risk != "" {
			fmt.Fprintln(w, "The agent rates it: "+visible(string(op.Risk)))
		}
		if q.Rule != "" {
			fmt.Fprintln(w, "Asked by the policy rule: "+visible(q.Rule))
		}
		if op.Context != "" && op.Context != q.Question {
			fmt.Fprintln(w, "Context: "+visibleLines(op.Context))
			if f := flagged("The context", op.Context); f != "" {
				fmt.Fprintln(w, colored(paint, ansiRed, f))
			}
		}
	}
	if q.Context != nil {
		if s := q.Context.CurrentStep; s != "" && (op == nil || s != op.Context) {
			fmt.Fprintln(w, "Step: "+visibleLines(s))
		}
		if q.Context.ErrorDetails != "" {
			fmt.Fprintln(w, "Error:\n"+visibleLines(q.Context.ErrorDetails))
		}
	}
	if op != nil {
		for _, f := range op.Input() {
			if f.Multiline {
				fmt.Fprintf(w, "\n%s:\n%s\n", visible(f.Key), indent(visibleLines(f.Value), "  │ "))
			}
		}
		for _, d := range op.Diffs {
			fmt.Fprintln(w)
			showDiff(w, d, paint)
		}
	}
	fmt.Fprintln(w)
	switch {
	case q.Pending():
		if q.NeedsSeveral() {
			fmt.Fprintln(w, q.Tally())
		}
		fmt.Fprintln(w, "Answer it with: "+valueHint(q))
	case q.Response.WasEdited() && q.Response.EditedContent != "":
		where := ""
		if q.Response.Edited != "" {
			where = " at " + visible(q.Response.Edited)
		}
		fmt.Fprintf(w, "%s by %s: approved with an edit%s; the agent shows the edited change's diff and asks again; its new text:\n%s\n", q.Status, visible(auth.PersonName(q.RespondedBy)), where, visibleLines(q.Response.EditedContent))
	case q.Response.WasEdited():
		fmt.Fprintf(w, "%s by %s: approved with an edit; the agent runs:\n%s\n", q.Status, visible(auth.PersonName(q.RespondedBy)), visibleLines(q.Response.Edited))
	case q.Response != nil && !q.Sensitive:
		fmt.Fprintf(w, "%s by %s: %s\n", q.Status, visible(cmp.Or(auth.PersonName(q.RespondedBy), "the default")), visibleLines(q.Response.String()))
	default:
		fmt.Fprintf(w, "%s\n", q.Status)
	}
}

// ANSI colours of a diff on a terminal.
const (
	ansiRed   = "\x1b[31m"
	ansiGreen = "\x1b[32m"
	ansiCyan  = "\x1b[36m"
	ansiBold  = "\x1b[1m"
	ansiReset = "\x1b[0m"
)

// showDiff writes one file's change: a line naming it, then its unified
// diff line by line (each line's controls made visible), then whether it
// was cut.
func showDiff(w io.Writer, d hitl.FileDiff, paint bool) {
	head := "File: " + visible(d.Path)
	switch d.Change {
	case hitl.FileNew:
		head += " (new file)"
	case hitl.FileDelete:
		head += " (deleted)"
	}
	if d.MovedTo != "" {
		head += " → " + visible(d.MovedTo)
	}
	if d.Unified != "" || d.Problem == "" {
		head += fmt.Sprintf(" +%d −%d", d.Added, d.Removed)
	}
	fmt.Fprintln(w, colored(paint, ansiBold, head))
	if d.Problem != "" {
		fmt.Fprintln(w, colored(paint, ansiRed, "Problem: "+visible(d.Problem)))
	}
	hunks := false // the ---/+++ headers are the lines before the first hunk
	for _, l := range strings.Split(strings.TrimSuffix(d.Unified, "\n"), "\n") {
		if l == "" && d.Unified == "" {
			continue
		}
		v := visibleLines(l)
		hunks = hunks || strings.HasPrefix(l, "@@")
		switch {
		case !hunks && (strings.HasPrefix(l, "+++ ") || strings.HasPrefix(l, "--- ")):
			fmt.Fprintln(w, colored(paint, ansiBold, v))
		case strings.HasPrefix(l, "@@"):
			fmt.Fprintln(w, colored(paint, ansiCyan, v))
		case strings.HasPrefix(l, "+"):
			fmt.Fprintln(w, colored(paint, ansiGreen, v))
		case strings.HasPrefix(l, "-"):
			fmt.Fprintln(w, colored(paint, ansiRed, v))
		default:
			fmt.Fprintln(w, v)
		}
		if f := flagged("The line above", l); f != "" {
			fmt.Fprintln(w, colored(paint, ansiRed, f))
		}
	}
	if d.Truncated {
		fmt.Fprintln(w, colored(paint, ansiRed, "… truncated: the diff was cut at 256 KiB on the agent's machine"))
	}
}

func colored(paint bool, code, s string) string {
	if !paint {
		return s
	}
	return code + s + ansiReset
}

// indent puts prefix before each line of s.
func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+prefix)
}
