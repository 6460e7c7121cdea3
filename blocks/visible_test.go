package blocks

import (
	"strings"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/visible"
)

// trojan is a Trojan-source line (CVE-2021-42574): raw, it reads as a
// comment after the string.
const trojan = "access_level = \"user\u202e \u2066// Check if admin\u2069 \u2066\""

// TestTrojanSourceIsShownAndFlagged: in Slack, the question (the agent's
// description), the command line and a diff's lines show
// direction-changing characters as their code points, and say so.
func TestTrojanSourceIsShownAndFlagged(t *testing.T) {
	const shown = `access_level = "user&lt;U+202E&gt; &lt;U+2066&gt;// Check if admin&lt;U+2069&gt; &lt;U+2066&gt;"`
	shell := diffQuestion()
	shell.Question = "Set the level " + trojan
	shell.Operation = &hitl.Operation{Type: hitl.OpShell, Description: shell.Question, Resource: "echo '" + trojan + "'", Agent: "api:claude"}
	edit := diffQuestion(hitl.FileDiff{Path: "/home/dev/app/src/billing.go", Change: hitl.FileModify, Added: 1, Removed: 1,
		Unified: "--- a/home/dev/app/src/billing.go\n+++ b/home/dev/app/src/billing.go\n@@ -1 +1 @@\n-access_level = \"user\"\n+" + trojan + "\n"})
	for name, tc := range map[string]struct {
		q    *hitl.Question
		want []string
	}{
		"message_trojan_command": {shell, []string{
			"Set the level " + shown + "\n⚠️ _The question " + visible.Flag + "_",
			"`echo '" + shown + "'`\n⚠️ _The resource " + visible.Flag + "_"}},
		"message_trojan_diff": {edit, []string{
			"```\n@@ -1 +1 @@\n-access_level = \"user\"\n+" + shown + "\n```\n⚠️ _line 3 above " + visible.Flag + "_"}},
	} {
		t.Run(name, func(t *testing.T) {
			m := QuestionMessage(tc.q, webOpts)
			validate(t, m, "https://hitl.example.com/q/q_0123456789abcdef|Open in the web inbox")
			golden(t, name, m)
			text := sectionTexts(m.Blocks)
			if strings.ContainsAny(text, "\u202e\u2066\u2069") {
				t.Errorf("a direction-changing character reaches Slack raw:\n%s", text)
			}
			for _, want := range tc.want {
				if !strings.Contains(text, want) {
					t.Errorf("no %q in\n%s", want, text)
				}
			}
		})
	}
}
