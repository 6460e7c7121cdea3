package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/api"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/shell"
	"github.com/hitlbot/hitl/steer"
	"github.com/hitlbot/hitl/web"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The browser tests drive a headless Chromium (Debian's chromium, which
// .ci/run installs) against the API and the web inbox on one listener,
// as hitl serve mounts them. Without a chromium binary they skip, saying
// so.

// screenshotsEnv, set to 1, makes the tests write the README's
// screenshots into docs/.
const screenshotsEnv = "HITL_WEB_SCREENSHOTS"

func chromiumPath(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	fmt.Fprintln(os.Stderr, "web: SKIPPING the browser tests: no chromium binary (apt-get install chromium; .ci/run installs it)")
	t.Skip("no chromium binary: apt-get install chromium (.ci/run installs it)")
	return ""
}

// live is the service with the API and the web inbox on one test server.
type live struct {
	svc *service.Service
	srv *httptest.Server
}

func newLive(t testing.TB) *live {
	t.Helper()
	svc := service.NewService(memstore.New(), service.ServiceConfig{Notifier: notify.New(), ParseCommand: shell.Parse})
	var toks []api.Token
	for secret, p := range tokens {
		toks = append(toks, api.Token{Secret: secret, Principal: p})
	}
	server := api.NewServer(apiServicesOf(svc), api.ServerConfig{Tokens: toks})
	h := web.New(web.Config{Services: servicesOf(svc), TokenPrincipal: server.TokenPrincipal, LoopbackHost: api.LoopbackHost})
	srv := httptest.NewServer(web.Mount(server, h))
	t.Cleanup(func() { server.Close(); srv.Close() })
	return &live{svc: svc, srv: srv}
}

func (l *live) client(tok string) *client.Client { return client.NewClient(l.srv.URL, tok) }

// browse starts one headless Chromium for the test; each tab() is a new
// tab with the browser's cookies cleared: a person signing in afresh (the
// subtests run one after another).
func browse(t testing.TB) func(t testing.TB) context.Context {
	t.Helper()
	path := chromiumPath(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.WindowSize(1100, 900))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	bctx, cancelBrowser := chromedp.NewContext(alloc)
	t.Cleanup(cancelBrowser)
	require.NoError(t, chromedp.Run(bctx), "start chromium")
	return func(t testing.TB) context.Context {
		t.Helper()
		tab, cancel := chromedp.NewContext(bctx)
		t.Cleanup(cancel)
		ctx, cancelT := context.WithTimeout(tab, 20*time.Second)
		t.Cleanup(cancelT)
		require.NoError(t, chromedp.Run(ctx, network.ClearBrowserCookies()))
		return ctx
	}
}

// signIn signs tab in with token tok through the form, and waits for the
// page that follows (signed in, or the form again with its error).
func signIn(t testing.TB, ctx context.Context, base, tok string) {
	t.Helper()
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(base+"/login"),
		chromedp.SendKeys(`input[name="token"]`, tok, chromedp.ByQuery),
		chromedp.Click(`//button[normalize-space()="Sign in"]`, chromedp.BySearch),
		chromedp.WaitVisible(`.who, .error`, chromedp.ByQuery),
	))
}

// waitJS waits until expr is true in the page.
func waitJS(expr string) chromedp.Action {
	return chromedp.Poll(expr, nil, chromedp.WithPollingInterval(50*time.Millisecond))
}

// hasText waits until the element sel exists and its text holds text.
func hasText(sel, text string) chromedp.Action {
	return waitJS(fmt.Sprintf(`(function(){var e=document.querySelector(%q);return !!e&&e.textContent.includes(%q)})()`, sel, text))
}

// present waits until the element sel exists.
func present(sel string) chromedp.Action {
	return waitJS(fmt.Sprintf(`document.querySelector(%q) !== null`, sel))
}

// streamOpen waits for the page's event stream to be open (the script
// marks the body), so that a change made next reaches it.
func streamOpen() chromedp.Action {
	return present("body[data-live]")
}

func TestBrowser(t *testing.T) {
	tab := browse(t)
	l := newLive(t)
	base := l.srv.URL
	ag := l.client("agent-token-0123456789")

	t.Run("sign in with a token", func(t *testing.T) {
		ctx := tab(t)
		signIn(t, ctx, base, "alice-token-0123456789")
		require.NoError(t, chromedp.Run(ctx, hasText(".who", "api:alice")))
	})
	t.Run("sign in with a one-time link", func(t *testing.T) {
		link, err := l.svc.SignIns.NewSignInLink(as(rootP), aliceP)
		require.NoError(t, err)
		ctx := tab(t)
		require.NoError(t, chromedp.Run(ctx,
			chromedp.Navigate(base+"/login/link?t="+link),
			chromedp.Click(`//button[normalize-space()="Sign in"]`, chromedp.BySearch),
			chromedp.WaitVisible(`.who`, chromedp.ByQuery),
			hasText(".who", "api:alice")))
	})
	t.Run("an ask-only token cannot sign in", func(t *testing.T) {
		ctx := tab(t)
		signIn(t, ctx, base, "agent-token-0123456789")
		require.NoError(t, chromedp.Run(ctx, hasText(".error", "may not sign in")))
		var loc string
		require.NoError(t, chromedp.Run(ctx, chromedp.Navigate(base+"/"), chromedp.Location(&loc)))
		assert.Contains(t, loc, "/login", "still signed out")
	})
	t.Run("an agent blocked in ask wakes with the choice a person clicks", func(t *testing.T) {
		done := make(chan *hitl.Question, 1)
		go func() {
			q, err := ag.Ask(context.Background(), "choice-run", hitl.NewQuestion{Question: "Which environment?",
				Options: []hitl.Option{{Label: "Staging", Value: "staging"}, {Label: "Production", Value: "prod"}}})
			assert.NoError(t, err)
			done <- q
		}()
		ctx := tab(t)
		signIn(t, ctx, base, "alice-token-0123456789")
		require.NoError(t, chromedp.Run(ctx,
			chromedp.Navigate(base+"/"),
			chromedp.WaitVisible(`//button[normalize-space()="Production"]`, chromedp.BySearch),
			chromedp.Click(`//button[normalize-space()="Production"]`, chromedp.BySearch),
			present(".q.settled"),
		))
		select {
		case q := <-done:
			assert.Equal(t, "prod", q.Response.Value)
		case <-time.After(20 * time.Second):
			t.Fatal("the agent did not wake")
		}
	})
	t.Run("approve with a message and deny with a reason", func(t *testing.T) {
		ok, _, err := ag.Create(context.Background(), "ap-run", hitl.NewQuestion{Question: "Deploy now?", Type: hitl.Approval})
		require.NoError(t, err)
		no, _, err := ag.Create(context.Background(), "ap-run", hitl.NewQuestion{Question: "Drop the table?", Type: hitl.Approval})
		require.NoError(t, err)
		ctx := tab(t)
		signIn(t, ctx, base, "alice-token-0123456789")
		okCard, noCard := "#q-"+ok.ID, "#q-"+no.ID
		require.NoError(t, chromedp.Run(ctx,
			chromedp.Navigate(base+"/"),
			chromedp.Click(okCard+` details.full > summary`, chromedp.ByQuery),
			chromedp.SendKeys(okCard+` input[name="message"]`, "after the standup", chromedp.ByQuery),
			chromedp.Click(okCard+` button[value="approve_message"]`, chromedp.ByQuery),
			present(okCard+".settled"),
			chromedp.Click(noCard+` details.full > summary`, chromedp.ByQuery),
			chromedp.SendKeys(noCard+` input[name="reason"]`, "no backup yet", chromedp.ByQuery),
			chromedp.Click(noCard+` button[value="deny"]`, chromedp.ByQuery),
			present(noCard+".settled"),
		))
		got, err := l.svc.Questions.Question(as(rootP), ok.ID)
		require.NoError(t, err)
		assert.Equal(t, hitl.OutcomeApproved, got.Outcome())
		assert.Equal(t, "after the standup", got.Response.Text)
		got, err = l.svc.Questions.Question(as(rootP), no.ID)
		require.NoError(t, err)
		assert.Equal(t, hitl.OutcomeDenied, got.Outcome())
		assert.Equal(t, "no backup yet", got.Response.Text)
	})
	t.Run("a sensitive answer is typed in a password field and never shown", func(t *testing.T) {
		q, _, err := ag.Create(context.Background(), "secret-run", hitl.NewQuestion{Question: "The deploy key?", Sensitive: true})
		require.NoError(t, err)
		ctx := tab(t)
		signIn(t, ctx, base, "alice-token-0123456789")
		var html string
		require.NoError(t, chromedp.Run(ctx,
			chromedp.Navigate(base+"/q/"+q.ID),
			chromedp.SendKeys(`input[type="password"][name="value"]`, "hunter2-secret", chromedp.ByQuery),
			chromedp.Click(`//button[normalize-space()="Send"]`, chromedp.BySearch),
			present(".q.settled"),
			chromedp.OuterHTML("html", &html, chromedp.ByQuery),
		))
		assert.NotContains(t, html, "hunter2-secret")
		require.NoError(t, chromedp.Run(ctx, chromedp.Navigate(base+"/q/"+q.ID), chromedp.OuterHTML("html", &html, chromedp.ByQuery)))
		assert.NotContains(t, html, "hunter2-secret")
		got, err := ag.Receive(context.Background(), q.ID)
		require.NoError(t, err)
		assert.Equal(t, "hunter2-secret", got.Response.Value)
	})
	t.Run("a question answered elsewhere leaves an open page, saying who and when", func(t *testing.T) {
		q, _, err := ag.Create(context.Background(), "elsewhere-run", hitl.NewQuestion{Question: "Answered from the CLI?", Type: hitl.Approval})
		require.NoError(t, err)
		ctx := tab(t)
		signIn(t, ctx, base, "alice-token-0123456789")
		require.NoError(t, chromedp.Run(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible("#q-"+q.ID, chromedp.ByQuery), streamOpen()))
		_, err = l.client("root-token-0123456789a").Answer(context.Background(), q.ID, hitl.Response{Value: "approve"})
		require.NoError(t, err)
		var text string
		require.NoError(t, chromedp.Run(ctx,
			present("#q-"+q.ID+".settled"),
			chromedp.Text("#q-"+q.ID+" .notice", &text, chromedp.ByQuery)))
		assert.Contains(t, text, "was answered by api:root at ")
	})
	t.Run("a new question appears live and the title counts what waits", func(t *testing.T) {
		ctx := tab(t)
		signIn(t, ctx, base, "alice-token-0123456789")
		require.NoError(t, chromedp.Run(ctx, chromedp.Navigate(base+"/?run=appear-run"), streamOpen()))
		q, _, err := ag.Create(context.Background(), "appear-run", hitl.NewQuestion{Question: "Did I appear?"})
		require.NoError(t, err)
		var title string
		require.NoError(t, chromedp.Run(ctx, chromedp.WaitVisible("#q-"+q.ID, chromedp.ByQuery), chromedp.Title(&title)))
		assert.True(t, strings.HasPrefix(title, "(1) "), title)
	})
	t.Run("question text with a script renders as text", func(t *testing.T) {
		q, _, err := ag.Create(context.Background(), "xss-run", hitl.NewQuestion{Question: `<script>window.pwned=1</script><img src=x onerror="window.pwned=2">`})
		require.NoError(t, err)
		ctx := tab(t)
		signIn(t, ctx, base, "alice-token-0123456789")
		var heading string
		var pwned bool
		require.NoError(t, chromedp.Run(ctx,
			chromedp.Navigate(base+"/q/"+q.ID),
			chromedp.Text("h1", &heading, chromedp.ByQuery),
			chromedp.Evaluate(`window.pwned !== undefined`, &pwned)))
		assert.Equal(t, q.Question, heading)
		assert.False(t, pwned)
	})
	t.Run("a forged cross-site form post is refused", func(t *testing.T) {
		q, _, err := ag.Create(context.Background(), "csrf-run", hitl.NewQuestion{Question: "Forge me?", Type: hitl.Approval})
		require.NoError(t, err)
		target := base + "/q/" + q.ID + "/answer"
		evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<form id=f method=post action=%q><input name=decision value=approve></form><script>document.getElementById("f").submit()</script>`, target)
		}))
		defer evil.Close()
		evilURL := strings.Replace(evil.URL, "127.0.0.1", "localhost", 1) // another site
		ctx := tab(t)
		signIn(t, ctx, base, "alice-token-0123456789")
		var refusal string
		require.NoError(t, chromedp.Run(ctx,
			chromedp.Navigate(evilURL),
			chromedp.WaitVisible(`body[data-page="error"] .error`, chromedp.ByQuery),
			chromedp.Text(".error", &refusal, chromedp.ByQuery)))
		assert.Contains(t, refusal, "another site")
		got, err := l.svc.Questions.Question(as(rootP), q.ID)
		require.NoError(t, err)
		assert.True(t, got.Pending(), "nothing was decided")
	})
	t.Run("every input has a label and a phone-sized screen needs no sideways scrolling", func(t *testing.T) {
		for _, n := range []hitl.NewQuestion{
			{Question: "A long question that goes on and on, to see that it wraps on a small screen: " + strings.Repeat("word ", 40), Type: hitl.Approval},
			{Question: "Pick many", MultiSelect: true, Options: []hitl.Option{{Label: "A", Value: "a"}, {Label: "B", Value: "b"}}},
			{Question: "Pick one of many", Options: []hitl.Option{{Label: "1"}, {Label: "2"}, {Label: "3"}, {Label: "4"}, {Label: "5"}, {Label: "6"}}},
			{Question: "Free text?"},
			{Question: "Secret?", Sensitive: true},
			{Question: "Yes or no?", ResponseType: hitl.BooleanResponse},
		} {
			_, _, err := ag.Create(context.Background(), "a11y-run", n)
			require.NoError(t, err)
		}
		ctx := tab(t)
		signIn(t, ctx, base, "alice-token-0123456789")
		var unlabelled []string
		var fits bool
		require.NoError(t, chromedp.Run(ctx,
			chromedp.EmulateViewport(375, 800),
			chromedp.Navigate(base+"/?run=a11y-run"),
			chromedp.WaitVisible(".q", chromedp.ByQuery),
			chromedp.Evaluate(`[...document.querySelectorAll("input:not([type=hidden]), select, textarea")].filter(e => !e.labels || e.labels.length === 0).map(e => e.outerHTML)`, &unlabelled),
			chromedp.Evaluate(`document.documentElement.scrollWidth <= window.innerWidth`, &fits),
		))
		assert.Empty(t, unlabelled)
		assert.True(t, fits, "the inbox fits 375 px")
	})
	t.Run("steer a paused run", func(t *testing.T) {
		_, err := l.svc.Runs.Checkpoint(as(agentP), steer.StateEvent{RunID: "loop-7", Stack: []steer.StackEntry{{ID: "loop-7", Mode: "issue", Iter: 3, Max: 10, Model: "sonnet"}}})
		require.NoError(t, err)
		ctx := tab(t)
		signIn(t, ctx, base, "root-token-0123456789a") // control-only sees no live events (the root's Event.VisibleTo); the unit tests steer as ops
		var log, phase string
		require.NoError(t, chromedp.Run(ctx,
			chromedp.Navigate(base+"/runs/loop-7"),
			streamOpen(),
			chromedp.Click(`//button[normalize-space()="Pause"]`, chromedp.BySearch),
			hasText("#control-log", "Loop paused"),
			hasText(".status", "paused"),
			hasText("#activity", "Done: Loop paused"),                                 // the run's steering, live, in plain words
			present(`#steer button[value="resume"]`),                                  // the page now offers Resume
			waitJS(`document.querySelector('#steer button[value="pause"]') === null`), // and no longer Pause
			chromedp.SendKeys(`input[name="model"]`, "opus", chromedp.ByQuery),
			chromedp.Click(`//button[normalize-space()="Escalate"]`, chromedp.BySearch),
			hasText("#control-log", "Escalated to opus"),
			chromedp.SendKeys(`input[name="instruction"]`, "write the tests first", chromedp.ByQuery),
			chromedp.Click(`//button[normalize-space()="Redirect"]`, chromedp.BySearch),
			hasText("#control-log", "Instruction queued"),
			chromedp.Click(`//button[normalize-space()="Resume"]`, chromedp.BySearch),
			hasText("#control-log", "Loop resumed"),
			hasText(".status", "running"),
			chromedp.Text("#control-log", &log, chromedp.ByQuery),
			chromedp.Text(".status", &phase, chromedp.ByQuery),
		))
		assert.Contains(t, log, "Received: resume")
		assert.Contains(t, log, "Done: Loop resumed")
		assert.NotContains(t, log, "RESULT")
		assert.NotContains(t, log, "ACK")
		run, err := l.svc.Runs.RunRecord(as(rootP), "loop-7")
		require.NoError(t, err)
		assert.Equal(t, "opus", run.Control.Model)
		assert.Equal(t, "write the tests first", run.Control.Instruction)
		assert.Equal(t, steer.RunRunning, run.Control.Status)
	})
	t.Run("a finished run's page offers no steering buttons", func(t *testing.T) {
		_, err := l.svc.Runs.Checkpoint(as(agentP), steer.StateEvent{RunID: "loop-done", Stack: []steer.StackEntry{{ID: "loop-done", Mode: "issue", Iter: 9, Max: 10, Model: "sonnet"}}})
		require.NoError(t, err)
		_, err = l.svc.Runs.Publish(as(agentP), steer.StateEvent{Event: steer.StateDone, RunID: "loop-done"})
		require.NoError(t, err)
		ctx := tab(t)
		signIn(t, ctx, base, "root-token-0123456789a")
		var buttons, statuses int
		require.NoError(t, chromedp.Run(ctx,
			chromedp.Navigate(base+"/runs/loop-done"),
			hasText(".controls", "This run has ended: there is nothing to steer."),
			chromedp.Evaluate(`document.querySelectorAll(".controls button, .controls input").length`, &buttons),
			chromedp.Evaluate(`[...document.querySelectorAll("#run-state dt")].filter(e => e.textContent === "Status").length`, &statuses),
		))
		assert.Zero(t, buttons, "no Pause, Resume, Cancel, Escalate or Redirect")
		assert.Equal(t, 1, statuses, "the status is shown once")
	})
	t.Run("a Claude Code session's page offers no Escalate and shows its directory and first prompt", func(t *testing.T) {
		for _, h := range []steer.SessionHook{
			{RunID: "claude-3f2b8c1e", Agent: "Claude Code", Event: steer.HookSessionStart, CWD: "/home/dev/app", Model: "opus", AgentVersion: "2.1.197"},
			{RunID: "claude-3f2b8c1e", Agent: "Claude Code", Event: steer.HookUserPromptSubmit, Prompt: "Fix the failing test in pkg/billing"},
		} {
			_, err := l.svc.Runs.Hook(as(agentP), h)
			require.NoError(t, err)
		}
		ctx := tab(t)
		signIn(t, ctx, base, "root-token-0123456789a")
		var commands []string
		var page string
		require.NoError(t, chromedp.Run(ctx,
			chromedp.Navigate(base+"/runs/claude-3f2b8c1e"),
			hasText(".cwd", "/home/dev/app"),
			hasText(".title", "Fix the failing test in pkg/billing"),
			hasText(".agent", "Claude Code session"),
			hasText(".warning", "older than "+steer.MinClaudeCodeVersion),
			chromedp.Evaluate(`[...document.querySelectorAll(".controls button")].map(b => b.value)`, &commands),
			chromedp.Text("main", &page, chromedp.ByQuery),
		))
		assert.Equal(t, []string{"pause", "cancel", "redirect"}, commands, "no Escalate (a hook cannot switch the model), no Resume (not paused)")
		for _, word := range []string{"loop:control", "loop:current", "ACK", "RESULT", "schema"} {
			assert.NotContains(t, page, word)
		}
	})
	if os.Getenv(screenshotsEnv) == "1" {
		t.Run("screenshots", func(t *testing.T) { screenshots(t, tab, l) })
	}
}

// screenshots writes the README's pictures of the inbox and a run page.
func screenshots(t *testing.T, tab func(testing.TB) context.Context, l *live) {
	ag := l.client("agent-token-0123456789")
	ctx0 := context.Background()
	_, err := l.svc.Runs.Checkpoint(as(agentP), steer.StateEvent{RunID: "issue-42", Stack: []steer.StackEntry{{ID: "issue-42", Mode: "issue", Iter: 3, Max: 10, Model: "sonnet"}}})
	require.NoError(t, err)
	soon := 12.0
	_, _, err = ag.Create(ctx0, "issue-42", hitl.NewQuestion{Question: "The brief names an admin view and a public view. Build both, or the public one first?",
		Context: &hitl.QuestionContext{Agent: "claude-code", ProjectName: "shop", CurrentStep: "plan"}, TimeoutMinutes: &soon,
		Options: []hitl.Option{{Label: "Both", Value: "both"}, {Label: "Public first", Value: "public"}}})
	require.NoError(t, err)
	_, _, err = ag.Create(ctx0, "issue-42", hitl.NewQuestion{Question: "Run the database migration on staging?", Type: hitl.Approval,
		Context: &hitl.QuestionContext{Agent: "claude-code", ProjectName: "shop"}})
	require.NoError(t, err)
	_, _, err = ag.Create(ctx0, "nightly", hitl.NewQuestion{Question: "Rename the public API field user_name to username?", ResponseType: hitl.BooleanResponse})
	require.NoError(t, err)
	require.NoError(t, l.svc.Policies.LoadPolicy(ctx0, nil))
	for _, op := range []hitl.Operation{
		{Type: hitl.OpShell, Description: "Install the toolchain", Resource: "rm -rf .tools && curl -fsSL https://get.example.com/tools | sh", Cwd: "/home/dev/shop"},
		{Type: hitl.OpFileWrite, Description: "Write /home/dev/shop/NOTES.md", Resource: "/home/dev/shop/NOTES.md", Cwd: "/home/dev/shop",
			Diffs: []hitl.FileDiff{{Path: "/home/dev/shop/NOTES.md", Change: hitl.FileNew, Added: 3, Unified: "--- /dev/null\n+++ b/home/dev/shop/NOTES.md\n@@ -0,0 +1,3 @@\n+# Notes\n+\n+Public view first.\n"}}},
		{Type: hitl.OpShell, Description: "Push the branch", Resource: "git push --force origin feature/public-view", Cwd: "/home/dev/shop"},
	} {
		_, err = l.svc.Policies.RequestOperation(as(agentP), hitl.ApprovalRequest{RunID: "issue-42", Operation: op})
		require.NoError(t, err)
	}
	ctx := tab(t)
	signIn(t, ctx, l.srv.URL, "root-token-0123456789a")
	var inbox, run []byte
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(l.srv.URL+"/"), chromedp.WaitVisible(".q", chromedp.ByQuery), chromedp.FullScreenshot(&inbox, 100),
		chromedp.Navigate(l.srv.URL+"/runs/issue-42"), chromedp.WaitVisible(".controls", chromedp.ByQuery), chromedp.FullScreenshot(&run, 100)))
	require.NoError(t, os.WriteFile(filepath.Join("..", "docs", "web-inbox.png"), inbox, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join("..", "docs", "web-run.png"), run, 0o644))
}
