package web

import (
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/diff"
)

// approvalView is what an approval card shows, each thing once: what kind
// of operation; what runs (the exact command, path or URL, or the diff of
// a file change); why the agent wants it, only when that is not the
// title again; and how the policy decided.
type approvalView struct {
	Kind      string // "shell · the agent rates it high"
	WhatLabel string // Command, File, URL, Resource
	What      string // the exact resource; "" when there is none
	Diffs     []diffView
	Why       string
	Parts     []hitl.DecisionPart // how the policy decided each part, when that says more
	Risks     []hitl.RiskLabel    // what it does that a person should weigh, riskiest first
	Input     []inputView         // a tool's input as its fields, when it is a JSON object
	Grant     string              // what the command line may do when it runs (hitl.CommandGrant)
}

// inputView is one field of a tool's input: a long value is folded under
// its first line.
type inputView struct {
	hitl.InputField
	Folded string // the first line of a folded value; "" when shown whole
	Lines  int
}

// foldInput is when a value folds: more lines or characters than this.
const (
	foldLines = 12
	foldChars = 600
)

func inputOf(op *hitl.Operation) []inputView {
	var out []inputView
	for _, f := range op.Input() {
		v := inputView{InputField: f, Lines: strings.Count(strings.TrimSuffix(f.Value, "\n"), "\n") + 1}
		if v.Lines > foldLines || len(f.Value) > foldChars {
			first, _, _ := strings.Cut(f.Value, "\n")
			v.Folded = cut(first, 80)
		}
		out = append(out, v)
	}
	return out
}

// briefLines is how many diff lines an inbox card shows per file; the
// question page shows them all.
const briefLines = 40

// approvalOf is q's approval card, nil for a question without an
// operation. brief (an inbox card) shows each diff's first briefLines
// lines and links the rest.
func approvalOf(q *hitl.Question, brief bool) *approvalView {
	op := q.Operation
	if op == nil {
		return nil
	}
	v := &approvalView{Kind: string(op.Type), What: op.Resource, Risks: q.Risks}
	if op.Risk != "" {
		v.Kind += " · the agent rates it " + string(op.Risk)
	}
	switch op.Type {
	case hitl.OpShell:
		v.WhatLabel = "Command"
	case hitl.OpFileWrite, hitl.OpFileDelete, hitl.OpFileRead:
		v.WhatLabel = "File"
	case hitl.OpAPICall:
		v.WhatLabel = "Call"
	default:
		v.WhatLabel = "Resource"
	}
	for _, d := range op.Diffs {
		dv := diffOf(d)
		if brief {
			dv.brief(briefLines)
		}
		v.Diffs = append(v.Diffs, dv)
	}
	if len(v.Diffs) == 1 && op.Diffs[0].Path == op.Resource {
		v.What = "" // the diff names the file
	}
	if v.Input = inputOf(op); v.Input != nil {
		v.What = "" // its fields say it, each once
	}
	v.Why = saysMore(op.Context, titleOf(q), op.Resource)
	if hitl.PartsTellMore(q.Parts) {
		v.Parts = q.Parts
	}
	v.Grant = q.RunGrant.Text()
	return v
}

// titleOf is the card's title: the question, without the exact resource
// at its end that the card shows under it ("List files: ls -la" is
// titled "List files"; "Run ls -la", "Run this command").
func titleOf(q *hitl.Question) string {
	op := q.Operation
	if op == nil || op.Resource == "" || !strings.HasSuffix(q.Question, op.Resource) {
		return q.Question
	}
	t := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(strings.TrimSuffix(q.Question, op.Resource)), ":"))
	switch {
	case t == "":
		return q.Question
	case !strings.Contains(t, " "): // a verb: Run, Edit, Write, Read …
		noun := map[hitl.OpType]string{hitl.OpShell: "this command", hitl.OpFileWrite: "this file", hitl.OpFileDelete: "this file",
			hitl.OpFileRead: "this file", hitl.OpAPICall: "this"}[op.Type]
		return strings.TrimSpace(t + " " + orThis(noun))
	}
	return t
}

func orThis(s string) string {
	if s == "" {
		return "this"
	}
	return s
}

// saysMore is s unless it is empty or already said by one of shown
// (equal, or contained in it).
func saysMore(s string, shown ...string) string {
	s = strings.TrimSpace(s)
	for _, x := range shown {
		if x = strings.TrimSpace(x); s == "" || (x != "" && strings.Contains(x, s)) {
			return ""
		}
	}
	return s
}

// stepOf is the question's current step unless the approval card shows
// it already (an operation's context is its step).
func stepOf(q *hitl.Question) string {
	if q.Context == nil {
		return ""
	}
	if q.Operation != nil {
		return saysMore(q.Context.CurrentStep, q.Operation.Context, q.Question)
	}
	return q.Context.CurrentStep
}

// diffView is one file's diff as the page shows it: per hunk a table of
// lines with their numbers, added and removed lines marked by colour and
// by a + or − sign; a long diff folds its hunks after the first.
type diffView struct {
	hitl.FileDiff
	Hunks []hunkView
	Bad   string // the diff could not be read
	More  int    // lines left out of a brief view
}

// brief keeps the first n lines of the diff, counting the rest in More.
func (v *diffView) brief(n int) {
	for i := range v.Hunks {
		h := &v.Hunks[i]
		h.Open = true
		if len(h.Lines) > n {
			v.More += len(h.Lines) - n
			h.Lines = h.Lines[:n]
		}
		n -= len(h.Lines)
		if n <= 0 {
			for _, rest := range v.Hunks[i+1:] {
				v.More += len(rest.Lines)
			}
			v.Hunks = v.Hunks[:i+1]
			return
		}
	}
}

type hunkView struct {
	Header         string
	Added, Removed int
	Open           bool
	Lines          []lineView
}

type lineView struct {
	Class    string // add, del, ctx
	Sign     string // +, −, or a space
	Old, New int    // 0: none
	Text     string
	NoEOL    bool
}

// foldAfter is how many diff lines a file shows unfolded: beyond it only
// its first hunk is open.
const foldAfter = 80

func diffOf(d hitl.FileDiff) diffView {
	v := diffView{FileDiff: d}
	hs, err := diff.Parse(d.Unified)
	if err != nil {
		v.Bad = "This diff cannot be read: " + err.Error()
		return v
	}
	total := 0
	for _, h := range hs {
		total += len(h.Lines)
	}
	for i, h := range hs {
		hv := hunkView{Header: h.Header(), Open: total <= foldAfter || i == 0}
		for _, l := range h.Lines {
			lv := lineView{Old: l.Old, New: l.New, Text: l.Text, NoEOL: l.NoNewline}
			switch l.Kind {
			case diff.Added:
				lv.Class, lv.Sign = "add", "+"
				hv.Added++
			case diff.Removed:
				lv.Class, lv.Sign = "del", "−"
				hv.Removed++
			default:
				lv.Class, lv.Sign = "ctx", " "
			}
			hv.Lines = append(hv.Lines, lv)
		}
		v.Hunks = append(v.Hunks, hv)
	}
	return v
}

// editRows is how many rows the edited-input box needs to show the input
// whole.
func editRows(s string) int {
	rows := 0
	for _, l := range strings.Split(s, "\n") {
		rows += 1 + len(l)/70
	}
	return min(max(rows, 2), 40)
}

// contentLabel names the editable new text of a file change.
func contentLabel(op *hitl.Operation) string {
	switch {
	case strings.HasPrefix(op.Description, "Edit "):
		return "New text (replaces the old text)"
	case strings.HasPrefix(op.Description, "MultiEdit "):
		return "Edits (JSON: old_string, new_string, replace_all)"
	}
	return "Content"
}
