package web_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/hook"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBrowserEditContent: a person edits the new text of a file change in
// the card and approves it; that approval does not run it. The agent's
// side (here the same mcp functions the Claude Code hook uses, beside
// the file) computes the edited change's diff against the file and asks
// again; the person sees that recomputed diff in the browser before the
// edited change is approved.
func TestBrowserEditContent(t *testing.T) {
	tab := browse(t)
	l := newLive(t)
	base := l.srv.URL
	require.NoError(t, l.svc.Policies.LoadPolicy(context.Background(), nil))
	dir := t.TempDir()
	readme := filepath.Join(dir, "README.md")
	require.NoError(t, os.WriteFile(readme, []byte("# app\n\nBilling.\n"), 0o644))
	call := hook.ToolCall{Tool: "Write", Input: map[string]any{"file_path": readme, "content": "# app\n\nBilling and refunds.\n"}}
	c := l.client("agent-token-0123456789")
	gate := func(call hook.ToolCall, notice string) (chan client.GateResult, string) {
		t.Helper()
		op := hook.AgentSide(call.OperationAt(strings.TrimSpace(notice+" Claude Code session in "+dir), dir, hook.ReadLocal), "", dir)
		got := make(chan client.GateResult, 1)
		asked := make(chan string, 1)
		go func() {
			v, err := c.Gate(context.Background(), hitl.ApprovalRequest{RunID: "claude-edit", Operation: op}, client.Progress{Asked: func(id string) { asked <- id }})
			if err != nil {
				v.Message = "error: " + err.Error()
			}
			got <- v
		}()
		return got, <-asked
	}

	first, id := gate(call, "")
	ctx := tab(t)
	signIn(t, ctx, base, "alice-token-0123456789")
	edited := "# app\n\nBilling, refunds and taxes.\nInvoices.\n"
	var msg string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(base+"/q/"+id),
		chromedp.WaitVisible("#q-"+id+" section.diff", chromedp.ByQuery),
		chromedp.Click("#q-"+id+" details.edit summary", chromedp.ByQuery),
		chromedp.SetValue("#q-"+id+" textarea[name=editedContent]", edited, chromedp.ByQuery),
		chromedp.Click(`#q-`+id+` details.edit button[value="edited"]`, chromedp.ByQuery),
		hasText("#live", "does not run yet"), // what the answer did, said aloud
		chromedp.Text("#live", &msg, chromedp.ByQuery)))
	assert.Contains(t, msg, "the agent shows you the edited change's diff against the file and asks again")

	v := <-first
	require.True(t, v.Allowed, v.Message)
	require.Equal(t, edited, v.EditedContent, "the browser's CRLF line breaks are the agent's LF again")
	assert.Empty(t, v.Edited, "the path was left as it was")
	input, ok := call.EditedInput(v.Edited, v.EditedContent)
	require.True(t, ok)
	second, again := gate(hook.ToolCall{Tool: "Write", Input: input}, fmt.Sprintf("Asked again: %s edited this change (question %s).", v.By, id))
	require.NotEqual(t, id, again)

	var diff string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(base+"/q/"+again),
		chromedp.WaitVisible("#q-"+again+" section.diff", chromedp.ByQuery),
		chromedp.Text("#q-"+again+" section.diff", &diff, chromedp.ByQuery)))
	assert.Contains(t, diff, "Billing, refunds and taxes.", "the recomputed diff has the person's text")
	assert.Contains(t, diff, "Invoices.")
	assert.Contains(t, diff, "Billing.", "…against what the file holds")
	assert.Contains(t, diff, "+2 −1", "counted against the file")
	var context string
	require.NoError(t, chromedp.Run(ctx, chromedp.Text("#q-"+again+" .why", &context, chromedp.ByQuery)))
	assert.Contains(t, context, "Asked again: ")
	assert.Contains(t, context, "(question "+id+")", "it names the first question")

	if os.Getenv(screenshotsEnv) == "1" {
		var png []byte
		require.NoError(t, chromedp.Run(ctx, chromedp.FullScreenshot(&png, 100)))
		require.NoError(t, os.WriteFile(filepath.Join("..", "docs", "web-edit.png"), png, 0o644))
	}
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Click(`#q-`+again+` button[value="approve"]`, chromedp.ByQuery),
		hasText("#live", "Answered "+again)))
	v = <-second
	require.True(t, v.Allowed, v.Message)
	assert.Empty(t, v.EditedContent, "approved as shown")
	op := hook.ToolCall{Tool: "Write", Input: input}.Operation("")
	assert.Equal(t, hitl.OpFileWrite, op.Type)
	assert.Equal(t, edited, op.Content)
}
