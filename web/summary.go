package web

import (
	"path"
	"strconv"
	"strings"

	"github.com/hitlbot/hitl"
)

// An inbox row says what a question asks for in a few words, so a person
// can scan twenty of them: the tool and its key argument for an approval
// ("Write notes.md · new · +3", "Run npm install", "Call send_email"),
// the question itself for the rest.

// maxSummary bounds a row's summary, in characters.
const maxSummary = 80

// summaryOf is q's row: what it asks for, in a few words.
func summaryOf(q *hitl.Question) string {
	op := q.Operation
	if op == nil {
		return cut(oneLine(q.Question), maxSummary)
	}
	switch op.Type {
	case hitl.OpShell:
		return "Run " + cut(oneLine(op.Resource), maxSummary-4)
	case hitl.OpFileWrite, hitl.OpFileDelete, hitl.OpFileRead:
		verb := map[hitl.OpType]string{hitl.OpFileWrite: "Write ", hitl.OpFileDelete: "Delete ", hitl.OpFileRead: "Read "}[op.Type]
		if len(op.Diffs) > 1 {
			a, r := op.DiffStat()
			return verb + strconv.Itoa(len(op.Diffs)) + " files · +" + strconv.Itoa(a) + " −" + strconv.Itoa(r)
		}
		name := op.Resource
		if len(op.Diffs) == 1 {
			name = op.Diffs[0].Path
		}
		s := verb + cut(path.Base(oneLine(name)), maxSummary-20)
		if len(op.Diffs) == 1 {
			d := op.Diffs[0]
			if d.Change == hitl.FileNew {
				s += " · new"
			}
			if d.Problem == "" {
				s += " · +" + strconv.Itoa(d.Added) + " −" + strconv.Itoa(d.Removed)
			}
		}
		return s
	case hitl.OpAPICall:
		return "Call " + cut(oneLine(op.Resource), maxSummary-5)
	case hitl.OpSpawnAgent:
		return "Start the agent " + cut(oneLine(op.Resource), maxSummary-16)
	}
	if op.Resource != "" {
		return "Use " + cut(string(op.Type)+" "+oneLine(op.Resource), maxSummary-4)
	}
	return cut(oneLine(q.Question), maxSummary)
}

// topRisk is the riskiest of q's risks, cut for a row; "" without one.
func topRisk(q *hitl.Question) string {
	if len(q.Risks) == 0 {
		return ""
	}
	return cut(q.Risks[0].Text, maxSummary)
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// cut shortens s to n characters, marking the cut with "…".
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n || n < 1 {
		return s
	}
	return string(r[:n-1]) + "…"
}
