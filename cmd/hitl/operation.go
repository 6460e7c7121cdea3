package main

import (
	"fmt"

	"github.com/hitlbot/hitl/policy"
)

// operationLines is what a person sees of what an approval lets the agent
// do, before deciding: the operation's type and its exact resource (the
// command line, the path, the URL), then, for a command line the policy
// decided part by part, each part and how it decided. A question that is
// not about an operation has none.
func operationLines(op *policy.Operation, parts []policy.DecisionPart) []string {
	if op == nil {
		return nil
	}
	head := visible(string(op.Type))
	if op.Resource != "" {
		head += ": " + visible(op.Resource)
	}
	if shownDiff(op) {
		a, r := op.DiffStat()
		head += fmt.Sprintf(" (+%d −%d)", a, r)
	}
	lines := []string{head}
	if f := flagged("The resource", op.Resource); f != "" {
		lines = append(lines, "  "+f)
	}
	if policy.PartsTellMore(parts) {
		for _, p := range parts {
			lines = append(lines, fmt.Sprintf("  %-5s %s%s  (%s)", p.Effect, p.Verb(), visible(p.Text), visible(p.Reason)))
		}
	}
	return lines
}

// operationRows writes a table row's last cell, the operation, and the
// lines that follow it under that column (cols cells to its left), so a
// tabwriter keeps the table aligned: "-" without an operation.
func operationRows(lines []string, cols int) string {
	if len(lines) == 0 {
		return "-\n"
	}
	out := lines[0] + "\n"
	for _, l := range lines[1:] {
		for range cols {
			out += "\t"
		}
		out += l + "\n"
	}
	return out
}

// shownDiff reports whether the operation carries a diff to count (not
// only files whose change could not be shown).
func shownDiff(op *policy.Operation) bool {
	for _, d := range op.Diffs {
		if d.Unified != "" {
			return true
		}
	}
	return false
}
