package main

import (
	"fmt"
	"strings"

	"github.com/hitlbot/hitl"
)

// operationLines is what a person sees of what an approval lets the agent
// do, before deciding: the operation's type and its exact resource (the
// command line, the path, the URL), then, for a command line the policy
// decided part by part, each part and how it decided; what it does that a
// person should weigh leads (risks, riskiest first). A question that is
// not about an operation has none.
func operationLines(op *hitl.Operation, parts []hitl.DecisionPart, risks []hitl.RiskLabel) []string {
	if op == nil {
		return nil
	}
	head := visible(string(op.Type))
	input := op.Input()
	if op.Resource != "" && input == nil {
		head += ": " + visible(op.Resource)
	}
	if shownDiff(op) {
		a, r := op.DiffStat()
		head += fmt.Sprintf(" (+%d −%d)", a, r)
	}
	lines := []string{head}
	if len(risks) > 0 {
		lines = append(lines, "  risk: "+visible(hitl.RiskSummary(risks)))
	}
	if f := flagged("The resource", op.Resource); f != "" {
		lines = append(lines, "  "+f)
	}
	for _, f := range input {
		v := f.Value
		if f.Multiline {
			first, _, _ := strings.Cut(v, "\n")
			v = fmt.Sprintf("%s … (%d lines)", first, strings.Count(strings.TrimSuffix(v, "\n"), "\n")+1)
		}
		lines = append(lines, "  "+visible(f.Key)+": "+visible(v))
	}
	if hitl.PartsTellMore(parts) {
		for _, p := range parts {
			lines = append(lines, partLine(p))
		}
	}
	return lines
}

// partLine is one part of a command line: how it decided, and the first
// of its risks.
func partLine(p hitl.DecisionPart) string {
	line := fmt.Sprintf("  %-5s %s%s  (%s)", p.Effect, p.Verb(), visible(p.Text), visible(p.Reason))
	if len(p.Risks) > 0 {
		line += "  ! " + visible(p.Risks[0].Text)
	}
	return line
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
func shownDiff(op *hitl.Operation) bool {
	for _, d := range op.Diffs {
		if d.Unified != "" {
			return true
		}
	}
	return false
}
