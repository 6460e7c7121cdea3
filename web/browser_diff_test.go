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
	"github.com/hitlbot/hitl/visible"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// billingDiff is what the Claude Code hook computes for an Edit that
// drops a refund check and logs instead (see mcp's goldens).
const billingDiff = "--- a/home/dev/app/src/billing.go\n+++ b/home/dev/app/src/billing.go\n@@ -4,8 +4,9 @@\n \tif o.Paid == 0 {\n \t\treturn errNothingPaid\n \t}\n-\tif !o.RefundAllowed() {\n-\t\treturn errNoRefund\n-\t}\n+\tif o.Paid > limit {\n+\t\tlog.Printf(\"large refund %v\", o.ID)\n+\t}\n+\taudit(o)\n \treturn pay(-o.Paid)\n }\n"

func TestBrowserApprovalCards(t *testing.T) {
	tab := browse(t)
	l := newLive(t)
	base := l.srv.URL
	require.NoError(t, l.svc.Policies.LoadPolicy(context.Background(), nil))
	request := func(op hitl.Operation) string {
		t.Helper()
		out, err := l.svc.Policies.RequestOperation(as(agentP), hitl.ApprovalRequest{RunID: "claude-3f2b8c1e", Operation: op})
		require.NoError(t, err)
		require.NotEmpty(t, out.QuestionID)
		return out.QuestionID
	}
	t.Run("an approval card shows its command once", func(t *testing.T) {
		cmd := "npm run migrate -- --env staging"
		id := request(hitl.Operation{Type: hitl.OpShell, Description: "Run the database migrations on staging: " + cmd, Resource: cmd,
			Context: "Claude Code session 3f2b8c1e in /home/dev/app"})
		ctx := tab(t)
		signIn(t, ctx, base, "alice-token-0123456789")
		// the inbox's row opens to the card (its summary names the
		// command in a few words; the card shows it whole, once)
		for page, card := range map[string]string{"/": "#q-" + id + " details.full", "/q/" + id: "#q-" + id} {
			var text string
			var open chromedp.Action = chromedp.ActionFunc(func(context.Context) error { return nil })
			if page == "/" {
				open = chromedp.Click(card+" > summary", chromedp.ByQuery)
			}
			require.NoError(t, chromedp.Run(ctx,
				chromedp.Navigate(base+page),
				chromedp.WaitVisible("#q-"+id, chromedp.ByQuery),
				open,
				chromedp.Evaluate(fmt.Sprintf(`document.querySelector(%q).innerText`, card), &text)))
			assert.Equal(t, 1, strings.Count(text, cmd), "%s: the command is shown once:\n%s", page, text)
			assert.Equal(t, 1, strings.Count(text, "Claude Code session 3f2b8c1e"), "%s: the session once", page)
			assert.Equal(t, 1, strings.Count(text, "Run the database migrations on staging"), "%s: the title once", page)
		}
		var opened string
		require.NoError(t, chromedp.Run(ctx,
			chromedp.Click(fmt.Sprintf(`#q-%s details.edit summary`, id), chromedp.ByQuery),
			chromedp.Evaluate(fmt.Sprintf(`document.querySelector("#q-%s textarea[name=edited]").value`, id), &opened)))
		assert.Equal(t, cmd, opened, "Edit before approving… holds the command whole")
	})
	t.Run("a Trojan-source line reads as what it is, flagged", func(t *testing.T) {
		id := request(hitl.Operation{Type: hitl.OpShell, Description: "Set the level: echo '" + trojan + "'", Resource: "echo '" + trojan + "'"})
		ctx := tab(t)
		signIn(t, ctx, base, "alice-token-0123456789")
		var text string
		var flagColour, codeColour string
		require.NoError(t, chromedp.Run(ctx,
			chromedp.Navigate(base+"/q/"+id),
			chromedp.WaitVisible("#q-"+id+" pre.what", chromedp.ByQuery),
			chromedp.Evaluate(fmt.Sprintf(`document.querySelector("#q-%s pre.what").innerText`, id), &text),
			chromedp.Evaluate(fmt.Sprintf(`getComputedStyle(document.querySelector("#q-%s pre.what .flag")).color`, id), &flagColour),
			chromedp.Evaluate(fmt.Sprintf(`getComputedStyle(document.querySelector("#q-%s pre.what code")).color`, id), &codeColour)))
		assert.Equal(t, `echo 'access_level = "user<U+202E> <U+2066>// Check if admin<U+2069> <U+2066>"' ⚠ `+visible.Flag, text)
		assert.NotEqual(t, codeColour, flagColour, "the flag stands out (.flag's colour)")
	})
	t.Run("a file change shows its diff with numbers, colour and signs, and fits a phone", func(t *testing.T) {
		var long strings.Builder
		long.WriteString("--- a/home/dev/app/gen.go\n+++ b/home/dev/app/gen.go\n")
		for h := range 4 {
			fmt.Fprintf(&long, "@@ -%d,30 +%d,30 @@\n", 1+h*100, 1+h*100)
			for i := range 30 {
				fmt.Fprintf(&long, "-old line %d\n+new line %d\n", i, i)
			}
		}
		// A patch of two files (Codex's apply_patch): no resource, the
		// diffs name the files.
		id := request(hitl.Operation{Type: hitl.OpFileWrite, Description: "Apply a patch",
			Context: "Claude Code session 3f2b8c1e in /home/dev/app",
			Diffs: []hitl.FileDiff{
				{Path: "/home/dev/app/src/billing.go", Change: hitl.FileModify, Added: 4, Removed: 3, Unified: billingDiff},
				{Path: "/home/dev/app/gen.go", Change: hitl.FileModify, Added: 120, Removed: 120, Unified: long.String()},
			}})
		ctx := tab(t)
		signIn(t, ctx, base, "alice-token-0123456789")
		var addBg, delBg, ctxBg, sign, oldNo string
		var openHunks, fits bool
		var folded int
		require.NoError(t, chromedp.Run(ctx,
			chromedp.Navigate(base+"/q/"+id),
			chromedp.WaitVisible("section.diff", chromedp.ByQuery),
			chromedp.Evaluate(`getComputedStyle(document.querySelector("tr.add")).backgroundColor`, &addBg),
			chromedp.Evaluate(`getComputedStyle(document.querySelector("tr.del")).backgroundColor`, &delBg),
			chromedp.Evaluate(`getComputedStyle(document.querySelector("tr.ctx")).backgroundColor`, &ctxBg),
			chromedp.Evaluate(`document.querySelector("tr.del td.sign").innerText + document.querySelector("tr.add td.sign").innerText`, &sign),
			chromedp.Evaluate(`document.querySelector("tr.del td.no").innerText`, &oldNo),
			chromedp.Evaluate(`[...document.querySelectorAll("section.diff")[0].querySelectorAll("details.hunk")].every(d => d.open)`, &openHunks),
			chromedp.Evaluate(`[...document.querySelectorAll("section.diff")[1].querySelectorAll("details.hunk")].filter(d => !d.open).length`, &folded),
		))
		assert.NotEqual(t, addBg, ctxBg, "added lines have a colour")
		assert.NotEqual(t, delBg, ctxBg, "removed lines have a colour")
		assert.NotEqual(t, addBg, delBg)
		assert.Equal(t, "−+", sign, "and a sign, for who does not see the colours")
		assert.Equal(t, "7", oldNo, "a removed line has its line number in the file")
		assert.True(t, openHunks, "a short diff is open")
		assert.Equal(t, 3, folded, "a long diff folds its hunks after the first")
		if os.Getenv(screenshotsEnv) == "1" {
			var png []byte
			require.NoError(t, chromedp.Run(ctx, chromedp.FullScreenshot(&png, 100)))
			require.NoError(t, os.WriteFile(filepath.Join("..", "docs", "web-diff.png"), png, 0o644))
		}
		require.NoError(t, chromedp.Run(ctx,
			chromedp.EmulateViewport(375, 800),
			chromedp.Reload(),
			chromedp.WaitVisible("section.diff", chromedp.ByQuery),
			chromedp.Evaluate(`document.documentElement.scrollWidth <= window.innerWidth`, &fits)))
		assert.True(t, fits, "the diff fits 375 px")
	})
}
