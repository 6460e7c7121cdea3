package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// page is a browser's request to the web inbox: its body and status.
func page(t *testing.T, c *http.Client, method, u string, form url.Values) (int, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	require.NoError(t, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := c.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(b)
}

func browserClient(t *testing.T) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &http.Client{Jar: jar}
}

var csrfOf = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func TestWebInboxServedBeside(t *testing.T) {
	t.Run("hitl serve serves the inbox at / and the API as before", func(t *testing.T) {
		m := startMain(t)
		q, _, err := m.Service.Questions.Create(auth.WithPrincipal(t.Context(), auth.LocalPrincipal("")), "r1", hitl.NewQuestion{Question: "Served?"})
		require.NoError(t, err)
		c := browserClient(t)
		status, body := page(t, c, http.MethodGet, m.URL()+"/", nil)
		assert.Equal(t, http.StatusOK, status)
		assert.Contains(t, body, "Served?")
		status, body = page(t, c, http.MethodGet, m.URL()+"/api/nope", nil)
		assert.Equal(t, http.StatusNotFound, status)
		assert.Contains(t, body, `"code":"not_found"`, "the API answers JSON as before")
		_, inbox := page(t, c, http.MethodGet, m.URL()+"/", nil)
		csrf := csrfOf.FindStringSubmatch(inbox)
		require.NotNil(t, csrf)
		status, _ = page(t, c, http.MethodPost, m.URL()+"/q/"+q.ID+"/answer", url.Values{"csrf": {csrf[1]}, "value": {"yes"}})
		assert.Equal(t, http.StatusOK, status)
		got, err := m.Service.Questions.Question(auth.WithPrincipal(t.Context(), auth.LocalPrincipal("")), q.ID)
		require.NoError(t, err)
		assert.Equal(t, "yes", got.Response.Value)
	})
}

func TestSlackWebLink(t *testing.T) {
	withTokens := func(c *config.Config, _ *Main) {
		c.Tokens = []config.Token{{Name: "agent", Token: "agent-token-0123456789", Scopes: []string{"ask"}}}
	}
	t.Run("/hitl web sends a one-time link that signs the Slack user in once", func(t *testing.T) {
		e := slackEnvOn(t, slackfake.New(t, slackfake.FailOnReject()), 30*time.Second, withTokens)
		text := e.slash(t, "U0ALICE", "web")
		m := regexp.MustCompile(`<(http://[^|>]+/login/link\?t=[^|>]+)\|Open the hitl web inbox>`).FindStringSubmatch(text)
		require.NotNil(t, m, text)
		link := strings.ReplaceAll(m[1], "&amp;", "&")
		c := browserClient(t)
		_, form := page(t, c, http.MethodGet, link, nil)
		csrf := csrfOf.FindStringSubmatch(form)
		require.NotNil(t, csrf, form)
		secret, err := url.Parse(link)
		require.NoError(t, err)
		status, body := page(t, c, http.MethodPost, e.m.URL()+"/login", url.Values{"csrf": {csrf[1]}, "link": {secret.Query().Get("t")}})
		assert.Equal(t, http.StatusOK, status)
		assert.Contains(t, body, "Signed in as slack:U0ALICE")
		other := browserClient(t)
		_, form = page(t, other, http.MethodGet, link, nil)
		csrf = csrfOf.FindStringSubmatch(form)
		status, body = page(t, other, http.MethodPost, e.m.URL()+"/login", url.Values{"csrf": {csrf[1]}, "link": {secret.Query().Get("t")}})
		assert.Equal(t, http.StatusUnauthorized, status)
		assert.Contains(t, body, "already used")
	})
	t.Run("a tokenless hitl says its inbox is this machine's", func(t *testing.T) {
		e := slackEnvOn(t, slackfake.New(t, slackfake.FailOnReject()), 30*time.Second)
		assert.Contains(t, e.slash(t, "U0ALICE", "web"), "has no tokens")
	})
}

func TestSlackMessageLinksToWebInbox(t *testing.T) {
	e := slackEnvOn(t, slackfake.New(t, slackfake.FailOnReject()), 30*time.Second, func(c *config.Config, _ *Main) {
		c.Web.URL = "https://hitl.example.com"
	})
	q, _ := e.ask(t, "r1", hitl.NewQuestion{Question: "Deploy?", ResponseType: hitl.BooleanResponse})
	msg := e.posted(t, testChannel, q)
	assert.Contains(t, string(msg.Blocks), `\u003chttps://hitl.example.com/q/`+q.ID+`|Open in the web inbox\u003e`)
}
