package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/web"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSignIn(t *testing.T) {
	t.Run("a page without a session goes to the sign-in form", func(t *testing.T) {
		b := newEnv(t, false).browser(t)
		r := b.get("/runs")
		assert.Equal(t, http.StatusSeeOther, r.status)
		assert.Equal(t, "/login?next=%2Fruns", r.header.Get("Location"))
		r = b.get("/login")
		assert.Contains(t, r.body, `<label>Token <input type="password" name="token"`)
		assert.Contains(t, r.body, `<button type="submit">Sign in</button>`)
	})
	t.Run("a personal token signs in with an HttpOnly SameSite=Strict session cookie", func(t *testing.T) {
		b := newEnv(t, false).browser(t)
		b.get("/login")
		r := b.post("/login", url.Values{"token": {"alice-token-0123456789"}, "next": {"/runs"}})
		require.Equal(t, http.StatusSeeOther, r.status, r.body)
		assert.Equal(t, "/runs", r.header.Get("Location"))
		c := r.header.Get("Set-Cookie")
		assert.Contains(t, c, "hitl_session=")
		assert.Contains(t, c, "HttpOnly")
		assert.Contains(t, c, "SameSite=Strict")
		assert.NotContains(t, c, "Secure", "plain http: not Secure")
		r = b.get("/")
		assert.Equal(t, http.StatusOK, r.status)
		assert.Contains(t, r.body, "Signed in as api:alice")
		assert.Contains(t, r.body, `<button type="submit">Sign out</button>`)
	})
	t.Run("over an https web.url the cookie is Secure", func(t *testing.T) {
		b := newEnv(t, false, func(c *web.Config) { c.BaseURL = "https://hitl.example.com" }).browser(t)
		b.get("/login")
		r := b.post("/login", url.Values{"token": {"alice-token-0123456789"}})
		require.Equal(t, http.StatusSeeOther, r.status)
		assert.Contains(t, r.header.Get("Set-Cookie"), "Secure")
	})
	t.Run("an ask-only token cannot sign in", func(t *testing.T) {
		b := newEnv(t, false).browser(t)
		b.get("/login")
		r := b.post("/login", url.Values{"token": {"agent-token-0123456789"}})
		assert.Equal(t, http.StatusForbidden, r.status)
		assert.Contains(t, r.body, "may not sign in to the web inbox")
		assert.NotContains(t, r.header.Get("Set-Cookie"), "hitl_session=")
		assert.Equal(t, http.StatusSeeOther, b.get("/").status, "still signed out")
	})
	t.Run("an unknown token is refused", func(t *testing.T) {
		b := newEnv(t, false).browser(t)
		b.get("/login")
		r := b.post("/login", url.Values{"token": {"nope"}})
		assert.Equal(t, http.StatusUnauthorized, r.status)
		assert.Contains(t, r.body, "That token is not one this service knows.")
	})
	t.Run("the sign-in form refuses a post without its CSRF token", func(t *testing.T) {
		b := newEnv(t, false).browser(t)
		b.get("/login")
		r := b.post("/login", url.Values{"token": {"alice-token-0123456789"}, "csrf": {"forged"}})
		assert.Equal(t, http.StatusForbidden, r.status)
		assert.Contains(t, r.body, "CSRF")
	})
	t.Run("a redirect after sign-in stays on this site", func(t *testing.T) {
		b := newEnv(t, false).browser(t)
		b.get("/login")
		r := b.post("/login", url.Values{"token": {"alice-token-0123456789"}, "next": {"//evil.example/x"}})
		assert.Equal(t, "/", r.header.Get("Location"))
	})
	t.Run("a session expires", func(t *testing.T) {
		e := newEnv(t, false)
		b := e.browser(t)
		b.signIn("alice-token-0123456789")
		q := e.ask("r1", hitl.NewQuestion{Question: "Ship it?", Type: hitl.Approval})
		e.clock.Add(time.Hour)
		r := b.post("/q/"+q.ID+"/answer", url.Values{"decision": {"approve"}})
		assert.Equal(t, http.StatusUnauthorized, r.status)
		assert.Contains(t, r.body, "your session expired: sign in again")
		assert.True(t, e.question(q.ID).Pending())
		assert.Equal(t, http.StatusSeeOther, b.get("/").status)
	})
	t.Run("sign out ends the session on the server", func(t *testing.T) {
		e := newEnv(t, false)
		b := e.browser(t)
		b.signIn("alice-token-0123456789")
		stolen := b.c.Jar.Cookies(mustURL(t, e.srv.URL))
		r := b.post("/logout", url.Values{})
		assert.Equal(t, http.StatusSeeOther, r.status)
		other := e.browser(t)
		other.c.Jar.SetCookies(mustURL(t, e.srv.URL), stolen)
		assert.Equal(t, http.StatusSeeOther, other.get("/").status, "the old cookie signs nobody in")
	})
	t.Run("a token taken out of config ends its sessions", func(t *testing.T) {
		e := newEnv(t, false)
		b := e.browser(t)
		b.signIn("alice-token-0123456789")
		e.removed["api:alice"] = true
		assert.Equal(t, http.StatusSeeOther, b.get("/").status)
	})
	t.Run("a one-time link signs in once", func(t *testing.T) {
		e := newEnv(t, false)
		link, err := e.svc.SignIns.NewSignInLink(as(rootP), aliceP)
		require.NoError(t, err)
		b := e.browser(t)
		r := b.get("/login/link?t=" + url.QueryEscape(link))
		assert.Contains(t, r.body, "one-time link")
		r = b.post("/login", url.Values{"link": {link}})
		require.Equal(t, http.StatusSeeOther, r.status, r.body)
		assert.Contains(t, b.get("/").body, "Signed in as api:alice")
		c := e.browser(t)
		c.get("/login/link?t=" + url.QueryEscape(link))
		r = c.post("/login", url.Values{"link": {link}})
		assert.Equal(t, http.StatusUnauthorized, r.status)
		assert.Contains(t, r.body, "already used")
	})
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	require.NoError(t, err)
	return u
}

// TestSessionCookieFollowsTheSession: the sign-in cookie lasts as long as
// the sign-in has left (Max-Age), whatever the browser's clock says of
// the service's: a service clock years behind or ahead of the browser's
// keeps it signed in, and its Max-Age is the sign-in's time left.
func TestSessionCookieFollowsTheSession(t *testing.T) {
	for _, at := range []time.Time{time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC), time.Now().AddDate(20, 0, 0)} {
		e := newEnv(t, false)
		e.clock.Set(at)
		b := e.browser(t)
		b.get("/login")
		r := b.post("/login", url.Values{"token": {"alice-token-0123456789"}})
		require.Equal(t, http.StatusSeeOther, r.status, r.body)
		assert.Contains(t, r.header.Get("Set-Cookie"), "Max-Age=3600", "the session's hour")
		assert.Equal(t, http.StatusOK, b.get("/").status, "signed in with the service's clock at %s", at)
	}
}

func TestTokenless(t *testing.T) {
	t.Run("the local person is signed in on the first page", func(t *testing.T) {
		e := newEnv(t, true)
		b := e.browser(t)
		r := b.get("/")
		assert.Equal(t, http.StatusOK, r.status)
		assert.Contains(t, r.body, "Signed in as local")
		assert.NotContains(t, r.body, "Sign out")
		assert.Contains(t, r.header.Get("Set-Cookie"), "SameSite=Strict")
		assert.Equal(t, http.StatusSeeOther, b.get("/login").status, "nobody signs in with a token here")
	})
	t.Run("browsers without a cookie share the local person's one session", func(t *testing.T) {
		e := newEnv(t, true)
		cookie := func(r resp) string {
			t.Helper()
			for _, c := range (&http.Response{Header: r.header}).Cookies() {
				if c.Value != "" && strings.Contains(r.header.Get("Set-Cookie"), c.Name+"=") {
					return c.Value
				}
			}
			t.Fatalf("no session cookie in %v", r.header)
			return ""
		}
		first := cookie(e.browser(t).get("/"))
		for range 5 {
			r := e.browser(t).get("/") // a client that keeps no cookie: a probe, a script
			require.Equal(t, http.StatusOK, r.status)
			assert.Equal(t, first, cookie(r), "the same session")
		}
		stored := func(at time.Time) int {
			t.Helper()
			n, err := e.store.PruneSignIns(context.Background(), at, 0)
			require.NoError(t, err)
			return n
		}
		assert.Zero(t, stored(e.clock.Now()), "none has expired")

		e.clock.Add(2 * time.Hour) // past the session's hour
		again := cookie(e.browser(t).get("/"))
		assert.NotEqual(t, first, again, "an expired session is not handed out: a new one is started")
		assert.Equal(t, again, cookie(e.browser(t).get("/")))
		assert.Equal(t, 1, stored(e.clock.Now().Add(24*time.Hour)), "one session stored for seven cookieless requests after the expired one")
	})
	t.Run("a request to a name that is not loopback is refused (DNS rebinding)", func(t *testing.T) {
		e := newEnv(t, true)
		req, err := http.NewRequest(http.MethodGet, e.srv.URL+"/", nil)
		require.NoError(t, err)
		req.Host = "evil.example:80"
		r := e.browser(t).do(req)
		assert.Equal(t, http.StatusForbidden, r.status)
		assert.Contains(t, r.body, "loopback")
	})
	t.Run("the local person answers what was asked on the machine", func(t *testing.T) {
		e := newEnv(t, true)
		q, _, err := e.svc.Questions.Create(as(auth.LocalPrincipal("")), "r1", hitl.NewQuestion{Question: "Which env?", Options: []hitl.Option{{Label: "staging", Value: "staging"}, {Label: "prod", Value: "prod"}}})
		require.NoError(t, err)
		b := e.browser(t)
		assert.Contains(t, b.get("/").body, "Which env?")
		r := b.post("/q/"+q.ID+"/answer", url.Values{"value": {"prod"}})
		assert.Equal(t, http.StatusOK, r.status, r.body)
		assert.Equal(t, "prod", e.question(q.ID).Response.Value)
	})
}

func TestFormsRefused(t *testing.T) {
	e := newEnv(t, false)
	q := e.ask("r1", hitl.NewQuestion{Question: "Deploy?", Type: hitl.Approval})
	b := e.browser(t)
	b.signIn("alice-token-0123456789")
	for _, tc := range []struct {
		name    string
		form    url.Values
		headers []string
		want    string
	}{
		{"a post without the CSRF token", url.Values{"decision": {"approve"}, "csrf": {""}}, nil, "CSRF"},
		{"a post with another CSRF token", url.Values{"decision": {"approve"}, "csrf": {"forged"}}, nil, "CSRF"},
		{"a post from another origin", url.Values{"decision": {"approve"}}, []string{"Origin", "http://evil.example"}, "another site"},
		{"a post a browser marks cross-site", url.Values{"decision": {"approve"}}, []string{"Sec-Fetch-Site", "cross-site"}, "another site"},
	} {
		t.Run(tc.name+" is refused and decides nothing", func(t *testing.T) {
			r := b.post("/q/"+q.ID+"/answer", tc.form, tc.headers...)
			assert.Equal(t, http.StatusForbidden, r.status)
			assert.Contains(t, r.body, tc.want)
			assert.True(t, e.question(q.ID).Pending())
		})
	}
	t.Run("a post from this origin is accepted", func(t *testing.T) {
		r := b.post("/q/"+q.ID+"/answer", url.Values{"decision": {"approve"}}, "Origin", e.srv.URL)
		assert.Equal(t, http.StatusOK, r.status, r.body)
		assert.False(t, e.question(q.ID).Pending())
	})
}

func TestSecurityHeaders(t *testing.T) {
	e := newEnv(t, false)
	for _, path := range []string{"/login", "/", "/static/app.js"} {
		r := e.browser(t).get(path)
		assert.Equal(t, "DENY", r.header.Get("X-Frame-Options"), path)
		csp := r.header.Get("Content-Security-Policy")
		assert.Contains(t, csp, "script-src 'self'", path)
		assert.Contains(t, csp, "frame-ancestors 'none'", path)
		assert.NotContains(t, csp, "unsafe-inline", path)
	}
	r := e.browser(t).get("/login")
	assert.False(t, strings.Contains(r.body, "<script>"), "no inline script")
}
