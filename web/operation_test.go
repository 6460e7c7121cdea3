package web_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const refundDiff = "--- a/home/dev/app/src/billing.go\n+++ b/home/dev/app/src/billing.go\n@@ -4,8 +4,5 @@\n \tif o.Paid == 0 {\n \t\treturn errNothingPaid\n \t}\n-\tif !o.RefundAllowed() {\n-\t\treturn errNoRefund\n-\t}\n \treturn pay(-o.Paid)\n }\n"

// request asks for op in run r1 under the approval protocol's default policy.
func (e *env) request(op hitl.Operation) string {
	e.t.Helper()
	require.NoError(e.t, e.svc.Policies.LoadPolicy(context.Background(), nil))
	out, err := e.svc.Policies.RequestOperation(as(agentP), hitl.ApprovalRequest{RunID: "r1", Operation: op})
	require.NoError(e.t, err)
	require.NotEmpty(e.t, out.QuestionID, "the policy asks")
	return out.QuestionID
}

func TestApprovalPageShowsTheDiff(t *testing.T) {
	e := newEnv(t, false)
	id := e.request(hitl.Operation{Type: hitl.OpFileWrite, Description: "Edit /home/dev/app/src/billing.go", Resource: "/home/dev/app/src/billing.go",
		Context: "Claude Code session s1 in /home/dev/app",
		Diffs:   []hitl.FileDiff{{Path: "/home/dev/app/src/billing.go", Change: hitl.FileModify, Removed: 3, Unified: refundDiff}}})
	b := e.browser(t)
	b.signIn("alice-token-0123456789")
	for name, path := range map[string]string{"question page": "/q/" + id, "inbox card": "/"} {
		t.Run(name, func(t *testing.T) {
			body := b.get(path).body
			for _, want := range []string{
				`<h3><code>/home/dev/app/src/billing.go</code> · <span class="added">+0</span> <span class="removed">−3</span></h3>`,
				`<details class="hunk" open>`,
				"<summary><code>@@ -4,8 &#43;4,5 @@</code>",
				// removed lines: their old number, no new one, the sign and the colour class
				"<tr class=\"del\"><td class=\"no\">7</td><td class=\"no\"></td><td class=\"sign\">−</td><td class=\"text\">\tif !o.RefundAllowed() {</td></tr>",
				"<tr class=\"ctx\"><td class=\"no\">11</td><td class=\"no\">8</td><td class=\"sign\"> </td><td class=\"text\">}</td></tr>",
				`<dd class="why">Claude Code session s1 in /home/dev/app</dd>`,
				`>Edit this file<`,
			} {
				assert.True(t, strings.Contains(body, want), "the page has %q", want)
			}
			assert.Equal(t, 1, strings.Count(body, "Claude Code session s1"), "the session is said once")
			assert.NotContains(t, body, "<dt>Step</dt>", "the step repeats the context")
		})
	}
}

func TestLongDiffsFoldByHunk(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("--- a/f\n+++ b/f\n")
	for h := range 3 {
		fmt.Fprintf(&sb, "@@ -%d,40 +%d,40 @@\n", 1+h*100, 1+h*100)
		for i := range 40 {
			fmt.Fprintf(&sb, "-old %d\n+new %d\n", i, i)
		}
	}
	e := newEnv(t, false)
	id := e.request(hitl.Operation{Type: hitl.OpFileWrite, Description: "Write f", Resource: "/f",
		Diffs: []hitl.FileDiff{{Path: "/f", Change: hitl.FileModify, Added: 20000, Removed: 120, Unified: sb.String(), Truncated: true}}})
	b := e.browser(t)
	b.signIn("alice-token-0123456789")
	body := b.get("/q/" + id).body
	assert.Equal(t, 1, strings.Count(body, `<details class="hunk" open>`), "only the first hunk is open")
	assert.Equal(t, 2, strings.Count(body, `<details class="hunk">`), "the others are folded")
	assert.True(t, strings.Contains(body, "Truncated: the diff was cut at 256 KiB on the agent's machine (&#43;20000 −120 lines in all)"), "says it was truncated")
	assert.NotContains(t, body, `class="more"`, "the question page shows the whole diff")

	card := b.get("/").body
	assert.Equal(t, 40, strings.Count(card, `<tr class="del">`)+strings.Count(card, `<tr class="add">`), "an inbox card shows the first lines")
	assert.True(t, strings.Contains(card, `<p class="more">… 200 more lines: <a href="/q/`+id+`">the whole diff</a></p>`), "and links the rest")
}

func TestApprovalCardSaysEachThingOnce(t *testing.T) {
	long := "psql -c 'UPDATE accounts SET flagged = false WHERE id IN (" + strings.Repeat("1234567, ", 60) + "7)' production"
	tests := []struct {
		name, desc, resource, context string
		title, why                    string
	}{
		{"a command with the agent's description", "Unflag the test accounts: " + long, long, "Claude Code session s1 in /srv/app", "Unflag the test accounts", "Claude Code session s1 in /srv/app"},
		{"a command without one", "Run make test", "make test", "", "Run this command", ""},
		{"a why that is the title is not repeated", "Deploy the site", "deploy.sh", "Deploy the site", "Deploy the site", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, false)
			id := e.request(hitl.Operation{Type: hitl.OpShell, Description: tt.desc, Resource: tt.resource, Context: tt.context})
			b := e.browser(t)
			b.signIn("alice-token-0123456789")
			body := b.get("/q/" + id).body
			assert.Contains(t, body, "<h1>"+tt.title+"</h1>")
			shown := strings.Count(body, `<pre class="what"><code>`+htmlEscape(tt.resource)+`</code></pre>`)
			assert.Equal(t, 1, shown, "the command is shown once, whole")
			assert.Contains(t, body, `<details class="edit"><summary>Edit before approving…</summary>`, "the edit box is folded")
			if tt.why != "" {
				assert.Equal(t, 1, strings.Count(body, tt.why))
			} else {
				assert.NotContains(t, body, `class="why"`)
			}
		})
	}
	t.Run("the edited input shows whole", func(t *testing.T) {
		e := newEnv(t, false)
		id := e.request(hitl.Operation{Type: hitl.OpShell, Description: "Fix the accounts", Resource: long})
		b := e.browser(t)
		b.signIn("alice-token-0123456789")
		assert.Contains(t, b.get("/q/"+id).body, `<textarea name="edited" rows="9">`+htmlEscape(long)+`</textarea>`)
		r := b.post("/q/"+id+"/answer", url.Values{"decision": {"edited"}, "edited": {long + " --dry-run"}})
		require.Equal(t, 200, r.status, r.body)
		assert.Contains(t, b.get("/q/"+id).body, `edited to:<pre class="what"><code>`+htmlEscape(long+" --dry-run")+`</code></pre>`)
	})
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "'", "&#39;", `"`, "&#34;").Replace(s)
}

// TestApprovalCardLeadsWithRisk: the card says first what the operation
// does that a person should weigh, riskiest first, and marks each part.
func TestApprovalCardLeadsWithRisk(t *testing.T) {
	e := newEnv(t, false)
	id := e.request(hitl.Operation{Type: hitl.OpShell, Description: "Set up", Resource: "rm -rf build && curl -s https://get.example.com/i | sh"})
	b := e.browser(t)
	b.signIn("alice-token-0123456789")
	body := b.get("/q/" + id).body
	risks := `<dt>Risk</dt><dd><ul class="risks"><li class="risk-runs_fetched_code">⚠ runs code fetched from the network: curl get.example.com, handed to a shell or interpreter</li><li class="risk-deletes_files">⚠ deletes files: build</li>`
	assert.Contains(t, body, risks)
	assert.Less(t, strings.Index(body, risks), strings.Index(body, "<dt>Operation</dt>"), "the risk leads")
	assert.Contains(t, body, `<code>rm -rf build</code> — no rule matches: default <span class="risk">⚠ deletes files: build</span>`)
}

// TestApprovalCardReadsToolInput: a framework tool's JSON input reads as
// its fields, a value of several lines as a block with its line breaks.
func TestApprovalCardReadsToolInput(t *testing.T) {
	e := newEnv(t, false)
	id := e.request(hitl.Operation{Type: "write_file", Description: "Use the tool write_file",
		Resource: `{"path":"notes.md","content":"line 1\nline 2"}`})
	b := e.browser(t)
	b.signIn("alice-token-0123456789")
	body := b.get("/q/" + id).body
	assert.Contains(t, body, `<dl class="input"><dt>path</dt><dd><code>notes.md</code></dd><dt>content</dt><dd><pre><code>line 1
line 2</code></pre></dd></dl>`)
	assert.NotContains(t, body, `<pre class="what">`, "the JSON is not shown again")
}
