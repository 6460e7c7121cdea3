package main

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/oidctest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOIDCBrowser: a person in Chromium signs in through the real
// provider's login page and answers a question in the web inbox.
func TestOIDCBrowser(t *testing.T) {
	path, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("no chromium binary: apt-get install chromium (.ci/run installs it)")
	}
	issuer := oidctest.Start(t)
	host := strings.Split(strings.TrimPrefix(issuer, "http://"), ":")[0]
	m := startMain(t, withOIDC(t, issuer, config.OIDCRoles{Answer: []string{"@zitadel.ch"}}))
	oidctest.Register(m.URL() + "/login/oidc/callback")
	q, _, err := client.NewClient(m.URL(), ciSecret).Create(t.Context(), "run-browser", hitl.NewQuestion{Question: "Which environment?",
		Options: []hitl.Option{{Label: "Staging", Value: "staging"}, {Label: "Production", Value: "prod"}}})
	require.NoError(t, err)

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(alloc)
	defer cancelBrowser()
	ctx, cancel := context.WithTimeout(bctx, 30*time.Second)
	defer cancel()
	var who string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(m.URL()+"/login/oidc"),
		chromedp.WaitVisible(`#username`, chromedp.ByQuery),
		chromedp.SendKeys(`#username`, "test-user@"+host, chromedp.ByQuery),
		chromedp.SendKeys(`#password`, oidctest.Password, chromedp.ByQuery),
		chromedp.Click(`button[type="submit"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.who`, chromedp.ByQuery),
		chromedp.Text(`.who`, &who, chromedp.ByQuery),
		// The question's own page: the inbox re-renders its queue when
		// the live stream replays the question being asked, which would
		// replace the button between finding and clicking it.
		chromedp.Navigate(m.URL()+"/q/"+q.ID),
		chromedp.WaitVisible(`//button[normalize-space()="Production"]`, chromedp.BySearch),
		chromedp.Click(`//button[normalize-space()="Production"]`, chromedp.BySearch),
		chromedp.WaitReady(`.q.settled`, chromedp.ByQuery),
	))
	assert.Equal(t, "Signed in as oidc:test-user@zitadel.ch", strings.TrimSpace(who))
	got, err := client.NewClient(m.URL(), auditAdminSecret).Question(t.Context(), q.ID)
	require.NoError(t, err)
	require.Equal(t, hitl.StatusAnswered, got.Status)
	assert.Equal(t, "prod", got.Response.Value)
	assert.Equal(t, "oidc:test-user@zitadel.ch", got.RespondedBy)
}
