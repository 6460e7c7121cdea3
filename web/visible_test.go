package web_test

import (
	"strings"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/visible"
	"github.com/stretchr/testify/assert"
)

// trojan is a Trojan-source line (CVE-2021-42574): raw, it reads as a
// comment after the string.
const trojan = "access_level = \"user\u202e \u2066// Check if admin\u2069 \u2066\""

// TestTrojanSourceIsShownAndFlagged: the question text, the command line,
// the agent's context and a diff's lines show direction-changing
// characters as their code points, each flagged; none reaches the page raw.
func TestTrojanSourceIsShownAndFlagged(t *testing.T) {
	e := newEnv(t, false)
	const file = "/home/dev/app/src/auth.py"
	shell := e.request(hitl.Operation{Type: hitl.OpShell, Description: "Set the level " + trojan + ": echo ok", Resource: "echo '" + trojan + "'",
		Context: "Because " + trojan})
	edit := e.request(hitl.Operation{Type: hitl.OpFileWrite, Description: "Edit " + file, Resource: file,
		Diffs: []hitl.FileDiff{{Path: file, Change: hitl.FileModify, Added: 1, Removed: 1,
			Unified: "--- a" + file + "\n+++ b" + file + "\n@@ -1 +1 @@\n-access_level = \"user\"\n+" + trojan + "\n"}}})
	const shown = `user&lt;U+202E&gt; &lt;U+2066&gt;// Check if admin&lt;U+2069&gt; &lt;U+2066&gt;`
	flag := `<strong class="flag" role="note">⚠ ` + visible.Flag + `</strong>`
	b := e.browser(t)
	b.signIn("alice-token-0123456789")
	for name, tc := range map[string]struct {
		path  string
		where []string // what must hold the shown line, flagged
	}{
		"a command's question page": {"/q/" + shell, []string{"<h1>Set the level access_level = &#34;" + shown, `<code>echo &#39;access_level = &#34;` + shown, `<dd class="why">Because access_level = &#34;` + shown}},
		"a diff's question page":    {"/q/" + edit, []string{`<td class="text">access_level = &#34;` + shown + `&#34; ` + flag + `</td>`}},
		"the inbox":                 {"/", []string{`access_level = &#34;` + shown, `<td class="text">access_level = &#34;` + shown}},
	} {
		t.Run(name, func(t *testing.T) {
			body := b.get(tc.path).body
			// The edit box holds the input as it is (what the agent runs
			// when a person approves it edited), flagged.
			for i := strings.Index(body, `name="edited"`); i >= 0; i = strings.Index(body, `name="edited"`) {
				j := strings.Index(body[i:], "</textarea>")
				if strings.Contains(body[i:i+j], "\u202e") {
					assert.Contains(t, body[i-200:i], "⚠ "+visible.Flag+": it is here as it is")
				}
				body = body[:i] + body[i+j:]
			}
			assert.False(t, strings.ContainsAny(body, "\u202e\u2066\u2069"), "no direction-changing character reaches the page raw")
			for _, want := range tc.where {
				i := strings.Index(body, want)
				if !assert.True(t, i >= 0, "the page has %q", want) {
					continue
				}
				end := strings.Index(body[i:], "</")
				assert.Contains(t, body[i:i+end+len(flag)+20], flag, "and flags it: %q", want)
			}
		})
	}
}
