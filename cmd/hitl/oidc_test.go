package main

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/oidctest"
	"github.com/hitlbot/hitl/internal/pgtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var oidcLoginID = regexp.MustCompile(`name="id" value="([^"]+)"`)

// withOIDC configures web.oidc against the provider at issuer, with roles,
// beside the audit test's tokens.
func withOIDC(t *testing.T, issuer string, roles config.OIDCRoles, domains ...string) func(*config.Config, *Main) {
	secret := filepath.Join(t.TempDir(), "oidc-secret")
	require.NoError(t, os.WriteFile(secret, []byte(oidctest.Secret+"\n"), 0o600))
	return func(c *config.Config, m *Main) {
		withAuditTrust(c, m)
		c.Web.OIDC = &config.OIDC{Issuer: issuer, ClientID: oidctest.Client, ClientSecretFile: secret, AllowedDomains: domains, Roles: roles}
	}
}

// oidcBrowserSignIn signs in to m's web inbox through the provider's
// login page as user, and returns the browser and the page it ends on.
func oidcBrowserSignIn(t *testing.T, m *Main, user string) (*http.Client, int, string) {
	t.Helper()
	oidctest.Register(m.URL() + "/login/oidc/callback")
	c := browserClient(t)
	res, err := c.Get(m.URL() + "/login/oidc")
	require.NoError(t, err)
	body := readBody(t, res)
	id := oidcLoginID.FindStringSubmatch(body)
	require.NotNil(t, id, "the provider's login page: %s", body)
	res, err = c.PostForm(res.Request.URL.Scheme+"://"+res.Request.URL.Host+"/login/username",
		url.Values{"id": {id[1]}, "username": {user}, "password": {oidctest.Password}})
	require.NoError(t, err)
	body = readBody(t, res)
	return c, res.StatusCode, body
}

func readBody(t *testing.T, res *http.Response) string {
	t.Helper()
	defer res.Body.Close()
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := res.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}

// TestOIDCSignIn: a person signs in to the web inbox through a real
// OpenID provider's login page, is who config's roles say, answers a
// question (audited as theirs, through the web), and signs out; a domain
// the roles do not grant is refused.
func TestOIDCSignIn(t *testing.T) {
	issuer := oidctest.Start(t)
	host := strings.Split(strings.TrimPrefix(issuer, "http://"), ":")[0]
	t.Run("sign in, answer, sign out", func(t *testing.T) {
		m := startMain(t, withOIDC(t, issuer, config.OIDCRoles{Answer: []string{"@zitadel.ch"}}, "zitadel.ch"))
		q, _, err := client.NewClient(m.URL(), ciSecret).Create(t.Context(), "run-oidc", hitl.NewQuestion{Question: "Ship it?"})
		require.NoError(t, err)
		c, status, body := oidcBrowserSignIn(t, m, "test-user@"+host)
		require.Equal(t, http.StatusOK, status, body)
		status, inbox := page(t, c, http.MethodGet, m.URL()+"/", nil)
		require.Equal(t, http.StatusOK, status)
		assert.Contains(t, inbox, "Signed in as oidc:test-user@zitadel.ch")
		assert.Contains(t, inbox, "Ship it?")
		csrf := csrfOf.FindStringSubmatch(inbox)
		require.NotNil(t, csrf)
		status, body = page(t, c, http.MethodPost, m.URL()+"/q/"+q.ID+"/answer", url.Values{"csrf": {csrf[1]}, "value": {"yes"}})
		require.Equal(t, http.StatusOK, status, body)
		status, _ = page(t, c, http.MethodPost, m.URL()+"/logout", url.Values{"csrf": {csrf[1]}})
		require.Less(t, status, 400)
		_, after := page(t, c, http.MethodGet, m.URL()+"/", nil)
		assert.NotContains(t, after, "Signed in as oidc:", "signed out")

		recs := auditRecords(t, t.Context(), m)
		var kinds []string
		for _, r := range recs {
			kinds = append(kinds, string(r.Kind)+" "+r.Actor+" "+r.Edge+" "+r.Action)
		}
		assert.Contains(t, kinds, "signed_in oidc:test-user@zitadel.ch web oidc")
		assert.Contains(t, kinds, "question_answered oidc:test-user@zitadel.ch web ")
		assert.Contains(t, kinds, "signed_out oidc:test-user@zitadel.ch web ")
	})
	t.Run("a domain the config does not allow is refused", func(t *testing.T) {
		m := startMain(t, withOIDC(t, issuer, config.OIDCRoles{Answer: []string{"@example.com"}}, "example.com"))
		_, status, body := oidcBrowserSignIn(t, m, "test-user2")
		assert.Equal(t, http.StatusForbidden, status, body)
		assert.Contains(t, body, "allowed_domains")
	})
	t.Run("signing in grants nothing the roles do not", func(t *testing.T) {
		m := startMain(t, withOIDC(t, issuer, config.OIDCRoles{Answer: []string{"someone@zitadel.ch"}}))
		_, status, body := oidcBrowserSignIn(t, m, "test-user2")
		assert.Equal(t, http.StatusForbidden, status, body)
		assert.Contains(t, body, "grants them nothing")
	})
}

// TestOIDCSignInAcrossReplicas: a sign-in started on one replica finishes
// on another (a load balancer without sticky sessions sends the provider's
// callback elsewhere): the sign-in in progress lives sealed in the
// browser's cookie under the seal key the replicas share, and the session
// it starts serves on both.
func TestOIDCSignInAcrossReplicas(t *testing.T) {
	issuer := oidctest.Start(t)
	dbURL, key := pgtest.DB(t), keyFile(t)
	roles := config.OIDCRoles{Answer: []string{"@zitadel.ch"}}
	const public = "http://hitl.test" // the balancer's address, every replica's web.url
	behind := func(c *config.Config, _ *Main) { c.Web.URL = public }
	r1 := startReplica(t, dbURL, key, withOIDC(t, issuer, roles), behind)
	r2 := startReplica(t, dbURL, key, withOIDC(t, issuer, roles), behind)
	oidctest.Register(public + "/login/oidc/callback")
	other, err := url.Parse(r2.URL())
	require.NoError(t, err)
	c := browserClient(t)
	landed := false
	c.CheckRedirect = func(req *http.Request, _ []*http.Request) error {
		if req.URL.Host == "hitl.test" {
			req.URL.Host, req.Host = other.Host, other.Host // the balancer picks r2
			landed = true
		}
		return nil
	}
	res, err := c.Get(r1.URL() + "/login/oidc")
	require.NoError(t, err)
	body := readBody(t, res)
	id := oidcLoginID.FindStringSubmatch(body)
	require.NotNil(t, id, "the provider's login page: %s", body)
	res, err = c.PostForm(res.Request.URL.Scheme+"://"+res.Request.URL.Host+"/login/username",
		url.Values{"id": {id[1]}, "username": {"test-user2"}, "password": {oidctest.Password}})
	require.NoError(t, err)
	body = readBody(t, res)
	require.Equal(t, http.StatusOK, res.StatusCode, body)
	require.True(t, landed, "the callback went to the other replica")
	for _, r := range []*Main{r2, r1} {
		_, inbox := page(t, c, http.MethodGet, r.URL()+"/", nil)
		assert.Contains(t, inbox, "Signed in as oidc:test-user2@zitadel.ch", r.URL())
	}
}
