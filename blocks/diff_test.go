package blocks

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/slack-go/slack"
)

const refundDiff = "--- a/home/dev/app/src/billing.go\n+++ b/home/dev/app/src/billing.go\n@@ -4,8 +4,5 @@\n \tif o.Paid == 0 {\n \t\treturn errNothingPaid\n \t}\n-\tif !o.RefundAllowed() {\n-\t\treturn errNoRefund\n-\t}\n \treturn pay(-o.Paid)\n }\n"

func diffQuestion(diffs ...hitl.FileDiff) *hitl.Question {
	q := question(hitl.Approval, hitl.ApprovalResponse)
	q.Question, q.Assignees, q.Rule = "Edit /home/dev/app/src/billing.go", nil, "default"
	q.Operation = &hitl.Operation{Type: hitl.OpFileWrite, Description: q.Question, Resource: "/home/dev/app/src/billing.go",
		Agent: "api:claude", Diffs: diffs}
	return q
}

// longDiff is a diff of n added lines.
func longDiff(n int) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- /dev/null\n+++ b/gen.go\n@@ -0,0 +1,%d @@\n", n)
	for i := range n {
		fmt.Fprintf(&sb, "+line %d <b>&amp;</b> ``` `x`\n", i+1)
	}
	return sb.String()
}

var webOpts = MessageOptions{Now: t0, WebURL: "https://hitl.example.com/"}

func TestDiffMessageGolden(t *testing.T) {
	edit := hitl.FileDiff{Path: "/home/dev/app/src/billing.go", Change: hitl.FileModify, Removed: 3, Unified: refundDiff}
	var patch []hitl.FileDiff
	for i := range 5 {
		patch = append(patch, hitl.FileDiff{Path: fmt.Sprintf("src/f%d.go", i), Change: hitl.FileNew, Added: 2, Unified: "--- /dev/null\n+++ b/src/f.go\n@@ -0,0 +1,2 @@\n+a\n+b\n"})
	}
	patch[1].Change, patch[1].MovedTo = hitl.FileModify, "src/moved.go"
	patch[2].Change, patch[2].Added, patch[2].Removed, patch[2].Unified = hitl.FileDelete, 0, 2, "--- a/src/f2.go\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n"
	cases := []struct {
		name string
		q    *hitl.Question
		opts MessageOptions
	}{
		{"message_diff_edit", diffQuestion(edit), webOpts},
		{"message_diff_edit_no_web", diffQuestion(edit), opts},
		{"message_diff_problem", diffQuestion(hitl.FileDiff{Path: "/home/dev/app/src/billing.go", Change: hitl.FileModify, Problem: "old_string is not in the file"}), webOpts},
		{"message_diff_long", diffQuestion(hitl.FileDiff{Path: "/home/dev/app/gen.go", Change: hitl.FileNew, Added: 20000, Unified: longDiff(300), Truncated: true}), webOpts},
		{"message_diff_patch", diffQuestion(patch...), webOpts},
		{"settled_diff_edit", answered(diffQuestion(edit), "slack:U0ANSWER1", &hitl.Response{Type: hitl.ApprovalResponse, Value: hitl.Approve}), webOpts},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := QuestionMessage(c.q, c.opts)
			validate(t, m, "@U0ANSWER1", "https://hitl.example.com/q/q_0123456789abcdef|Open in the web inbox",
				"https://hitl.example.com/q/q_0123456789abcdef|the whole diff in the web inbox")
			golden(t, c.name, m)
		})
	}
	t.Run("the first lines are shown, then how many more, with the link", func(t *testing.T) {
		m := QuestionMessage(diffQuestion(hitl.FileDiff{Path: "gen.go", Change: hitl.FileNew, Added: 300, Unified: longDiff(300)}), webOpts)
		text := sectionTexts(m.Blocks)
		for _, want := range []string{"📄 *gen.go* · new file · `+300 −0`", "+line 1 &lt;b&gt;&amp;amp;&lt;/b&gt; `\u200a`` `x`", "… 289 more lines — <https://hitl.example.com/q/q_0123456789abcdef|the whole diff in the web inbox>"} {
			if !strings.Contains(text, want) {
				t.Errorf("no %q in\n%s", want, text)
			}
		}
		if strings.Contains(text, "+line 12 ") {
			t.Errorf("more than %d lines shown", maxDiffLines)
		}
	})
}

func TestDiffMessageLimits(t *testing.T) {
	// As large as an agent can make it: the cap's worth of hostile lines,
	// hostile paths, many files.
	var diffs []hitl.FileDiff
	for range 40 {
		diffs = append(diffs, hitl.FileDiff{Path: hostile(4000), MovedTo: hostile(4000), Change: hitl.FileModify, Added: 1 << 20,
			Problem: hostile(4000), Unified: "@@ -1 +1 @@\n" + strings.Repeat("+"+hostile(3000)+"\n", 80), Truncated: true})
	}
	q := hostileQuestion(diffQuestion(diffs...))
	for name, o := range map[string]MessageOptions{"web": webOpts, "no web": opts} {
		t.Run(name, func(t *testing.T) {
			validate(t, QuestionMessage(q, o), append(mentionTokens(q.Assignees...), "@U0ANSWER1",
				"https://hitl.example.com/q/q_0123456789abcdef|Open in the web inbox",
				"https://hitl.example.com/q/q_0123456789abcdef|the whole diff in the web inbox")...)
		})
	}
}

func sectionTexts(bs []slack.Block) string {
	var out []string
	for _, b := range bs {
		switch b := b.(type) {
		case *slack.SectionBlock:
			if b.Text != nil {
				out = append(out, b.Text.Text)
			}
		case *slack.ContextBlock:
			for _, e := range b.ContextElements.Elements {
				if t, ok := e.(*slack.TextBlockObject); ok {
					out = append(out, t.Text)
				}
			}
		}
	}
	return strings.Join(out, "\n")
}
