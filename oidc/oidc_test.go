package oidc_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	gooidc "github.com/coreos/go-oidc/v3/oidc"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/oidctest"
	"github.com/hitlbot/hitl/oidc"
	"github.com/hitlbot/hitl/seal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"
)

const redirect = "http://127.0.0.1:1/login/oidc/callback"

// provider starts a real OpenID provider with hitl's client registered.
func provider(t *testing.T) string {
	t.Helper()
	oidctest.Register(redirect)
	return oidctest.Start(t)
}

func relyingParty(t *testing.T, issuer string) *oidc.RelyingParty {
	t.Helper()
	rp, err := oidc.New(context.Background(), oidc.Config{Issuer: issuer, ClientID: "hitl-test", ClientSecret: "hitl-secret",
		RedirectURL: redirect, Scopes: []string{"openid", "email", "profile"}, Cipher: seal.New()})
	require.NoError(t, err)
	return rp
}

// begin starts a sign-in at rp: the provider's address and the cookie.
func begin(t *testing.T, rp *oidc.RelyingParty) (start, cookie string) {
	t.Helper()
	start, cookie, err := rp.Start()
	require.NoError(t, err)
	return start, cookie
}

var authRequestID = regexp.MustCompile(`name="id" value="([^"]+)"`)

// signInAtProvider is the browser at the provider: it follows the start
// address to the login page, signs in as user, and returns the code and
// state the provider sends back to hitl's callback.
func signInAtProvider(t *testing.T, start, user string) (code, state string) {
	t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	var back *url.URL
	c := &http.Client{Jar: jar, CheckRedirect: func(r *http.Request, _ []*http.Request) error {
		if strings.HasPrefix(r.URL.String(), redirect) {
			back = r.URL
			return http.ErrUseLastResponse
		}
		return nil
	}}
	res, err := c.Get(start)
	require.NoError(t, err)
	body := new(strings.Builder)
	_, _ = ioCopy(body, res)
	m := authRequestID.FindStringSubmatch(body.String())
	require.NotNil(t, m, "the provider's login page: %s", body)
	res, err = c.PostForm(res.Request.URL.Scheme+"://"+res.Request.URL.Host+"/login/username",
		url.Values{"id": {m[1]}, "username": {user}, "password": {"verysecure"}})
	require.NoError(t, err)
	res.Body.Close()
	require.NotNil(t, back, "the provider sent the browser back")
	return back.Query().Get("code"), back.Query().Get("state")
}

func ioCopy(b *strings.Builder, res *http.Response) (int64, error) {
	defer res.Body.Close()
	buf := make([]byte, 32<<10)
	var n int64
	for {
		k, err := res.Body.Read(buf)
		b.Write(buf[:k])
		n += int64(k)
		if err != nil {
			return n, nil
		}
	}
}

// TestSignIn runs the authorization code flow with PKCE, state and nonce
// against a real provider, and each way it must fail.
func TestSignIn(t *testing.T) {
	issuer := provider(t)
	host := strings.Split(strings.TrimPrefix(issuer, "http://"), ":")[0]
	rp := relyingParty(t, issuer)
	ctx := context.Background()

	t.Run("a person signs in: their verified e-mail", func(t *testing.T) {
		start, cookie := begin(t, rp)
		assert.Contains(t, start, "code_challenge_method=S256")
		assert.Contains(t, start, "nonce=")
		assert.NotContains(t, cookie, url.QueryEscape(mustQuery(t, start, "state")), "the cookie is sealed")
		code, back := signInAtProvider(t, start, "test-user@"+host)
		assert.Equal(t, mustQuery(t, start, "state"), back)
		c, err := rp.Finish(ctx, cookie, back, code)
		require.NoError(t, err)
		assert.Equal(t, "test-user@zitadel.ch", c.Email)
		assert.True(t, c.EmailVerified)
		p, err := access.OIDCRoles{Answer: []string{"@zitadel.ch"}}.OIDCPrincipal(c)
		require.NoError(t, err)
		assert.Equal(t, "oidc:test-user@zitadel.ch", p.ID)
		assert.Equal(t, []auth.Scope{auth.ScopeAnswer}, p.Scopes)
	})
	t.Run("a domain the roles do not grant is refused", func(t *testing.T) {
		start, cookie := begin(t, rp)
		code, back := signInAtProvider(t, start, "test-user2")
		c, err := rp.Finish(ctx, cookie, back, code)
		require.NoError(t, err)
		_, err = access.OIDCRoles{AllowedDomains: []string{"example.com"}, Answer: []string{"@zitadel.ch"}}.OIDCPrincipal(c)
		assert.Equal(t, fault.EFORBIDDEN, fault.Code(err))
	})
	t.Run("a wrong state is refused", func(t *testing.T) {
		start, cookie := begin(t, rp)
		_, otherCookie := begin(t, rp)
		code, back := signInAtProvider(t, start, "test-user2")
		_, err := rp.Finish(ctx, cookie, "another-state", code)
		assert.Equal(t, fault.EUNAUTHORIZED, fault.Code(err))
		_, err = rp.Finish(ctx, otherCookie, back, code)
		assert.Equal(t, fault.EUNAUTHORIZED, fault.Code(err), "another browser's sign-in (its cookie) does not finish this one")
		_, err = rp.Finish(ctx, "", back, code)
		assert.Equal(t, fault.EUNAUTHORIZED, fault.Code(err), "no cookie: not started in this browser")
	})
	t.Run("a replayed code is refused", func(t *testing.T) {
		start, cookie := begin(t, rp)
		code, back := signInAtProvider(t, start, "test-user2")
		_, err := rp.Finish(ctx, cookie, back, code)
		require.NoError(t, err)
		_, err = rp.Finish(ctx, cookie, back, code)
		assert.Equal(t, fault.EUNAUTHORIZED, fault.Code(err), "the provider takes a code once")
		start2, cookie2 := begin(t, rp)
		_, err = rp.Finish(ctx, cookie2, mustQuery(t, start2, "state"), code)
		assert.Equal(t, fault.EUNAUTHORIZED, fault.Code(err), "nor in another sign-in")
	})
	t.Run("an ID token signed by someone else is refused", func(t *testing.T) {
		other := relyingParty(t, provider(t))
		start, cookie := begin(t, other)
		code, back := signInAtProvider(t, start, "test-user2")
		_, err := other.Finish(ctx, cookie, back, code)
		require.NoError(t, err)
		_, err = rp.Verify(ctx, "eyJhbGciOiJSUzI1NiIsImtpZCI6ImtleTEifQ.eyJpc3MiOiJ4In0.c2ln", "")
		assert.Equal(t, fault.EUNAUTHORIZED, fault.Code(err))
	})
}

// laterClock is a clock hours ahead: every ID token has expired by it.
type laterClock struct{}

func (laterClock) Now() time.Time { return time.Now().Add(3 * time.Hour) }

// TestExpiredIDToken: an ID token past its expiry is refused.
func TestExpiredIDToken(t *testing.T) {
	issuer := provider(t)
	host := strings.Split(strings.TrimPrefix(issuer, "http://"), ":")[0]
	rp, err := oidc.New(context.Background(), oidc.Config{Issuer: issuer, ClientID: "hitl-test", ClientSecret: "hitl-secret",
		RedirectURL: redirect, Scopes: []string{"openid", "email"}, Clock: laterClock{}, Cipher: seal.New()})
	require.NoError(t, err)
	start, cookie := begin(t, rp)
	code, back := signInAtProvider(t, start, "test-user@"+host)
	_, err = rp.Finish(context.Background(), cookie, back, code)
	assert.Equal(t, fault.EUNAUTHORIZED, fault.Code(err))
	assert.ErrorContains(t, err, "expired")
}

// idToken signs user in at the provider for a relying party of the
// test's own (the same client) and returns the raw ID token the
// provider signed, with its nonce.
func idToken(t *testing.T, issuer, user string) (raw, nonce string) {
	t.Helper()
	p, err := gooidc.NewProvider(t.Context(), issuer)
	require.NoError(t, err)
	cfg := oauth2.Config{ClientID: oidctest.Client, ClientSecret: oidctest.Secret, RedirectURL: redirect,
		Endpoint: p.Endpoint(), Scopes: []string{"openid"}}
	verifier, nonce := oauth2.GenerateVerifier(), oauth2.GenerateVerifier()
	code, _ := signInAtProvider(t, cfg.AuthCodeURL("s", gooidc.Nonce(nonce), oauth2.S256ChallengeOption(verifier)), user)
	tok, err := cfg.Exchange(t.Context(), code, oauth2.VerifierOption(verifier))
	require.NoError(t, err)
	raw, _ = tok.Extra("id_token").(string)
	require.NotEmpty(t, raw)
	return raw, nonce
}

// TestKeyRotation: the provider rotates its signing key; sign-in goes on
// working (a token by a key not seen yet makes hitl fetch the keys
// again), and a token signed by a key the provider removed is refused
// once hitl's copy of the keys is older than KeyMaxAge.
func TestKeyRotation(t *testing.T) {
	oidctest.Register(redirect)
	op := oidctest.StartProvider(t)
	clock := clocktest.New(time.Now())
	rp, err := oidc.New(t.Context(), oidc.Config{Issuer: op.Issuer, ClientID: oidctest.Client, ClientSecret: oidctest.Secret,
		RedirectURL: redirect, Scopes: []string{"openid", "email"}, Clock: clock, Cipher: seal.New()})
	require.NoError(t, err)
	signIn := func() error {
		t.Helper()
		start, cookie := begin(t, rp)
		code, back := signInAtProvider(t, start, "test-user2")
		c, err := rp.Finish(t.Context(), cookie, back, code)
		if err == nil {
			assert.Equal(t, "test-user2@zitadel.ch", c.Email)
		}
		return err
	}
	require.NoError(t, signIn(), "signed by the first key")
	old, nonce := idToken(t, op.Issuer, "test-user2")
	_, err = rp.Verify(t.Context(), old, nonce)
	require.NoError(t, err)

	retired := op.Rotate(t)
	require.NoError(t, signIn(), "signed by the new key: the keys are fetched again")
	_, err = rp.Verify(t.Context(), old, nonce)
	require.NoError(t, err, "the old key, still published, still verifies")

	op.Retire(retired)
	clock.Add(oidc.KeyMaxAge)
	_, err = rp.Verify(t.Context(), old, nonce)
	assert.Equal(t, fault.EUNAUTHORIZED, fault.Code(err), "a token signed by a removed key is refused: %v", err)
	require.NoError(t, signIn(), "sign-in goes on with the new key")

	other, _ := idToken(t, oidctest.Start(t), "test-user2")
	_, err = rp.Verify(t.Context(), other, nonce)
	assert.Equal(t, fault.EUNAUTHORIZED, fault.Code(err), "a token another provider signed (same issuer shape) is refused")
}

func mustQuery(t *testing.T, u, key string) string {
	t.Helper()
	p, err := url.Parse(u)
	require.NoError(t, err)
	return p.Query().Get(key)
}

// TestSignInAcrossReplicas: a sign-in started on one replica finishes on
// another (the sign-in is sealed in the browser's cookie under the key
// replicas share: no sticky sessions); a cookie sealed under another key,
// altered, or older than PendingTTL is refused.
func TestSignInAcrossReplicas(t *testing.T) {
	issuer := provider(t)
	key := bytes.Repeat([]byte{0x5a}, seal.KeySize)
	clock := clocktest.New(time.Now())
	replica := func(key []byte) *oidc.RelyingParty {
		t.Helper()
		c, err := seal.WithKey(key)
		require.NoError(t, err)
		rp, err := oidc.New(t.Context(), oidc.Config{Issuer: issuer, ClientID: oidctest.Client, ClientSecret: oidctest.Secret,
			RedirectURL: redirect, Scopes: []string{"openid", "email"}, Clock: clock, Cipher: c})
		require.NoError(t, err)
		return rp
	}
	r1, r2 := replica(key), replica(key)
	stranger := replica(bytes.Repeat([]byte{0x33}, seal.KeySize))

	start, cookie := begin(t, r1)
	code, back := signInAtProvider(t, start, "test-user2")
	c, err := r2.Finish(t.Context(), cookie, back, code)
	require.NoError(t, err, "started on one replica, finished on the other")
	assert.Equal(t, "test-user2@zitadel.ch", c.Email)

	start, cookie = begin(t, r1)
	code, back = signInAtProvider(t, start, "test-user2")
	_, err = stranger.Finish(t.Context(), cookie, back, code)
	assert.Equal(t, fault.EUNAUTHORIZED, fault.Code(err), "a service with another key cannot open it")
	altered := []byte(cookie)
	altered[len(altered)/2] ^= 1
	_, err = r2.Finish(t.Context(), string(altered), back, code)
	assert.Equal(t, fault.EUNAUTHORIZED, fault.Code(err), "an altered cookie is refused")

	start, cookie = begin(t, r1)
	code, back = signInAtProvider(t, start, "test-user2")
	clock.Add(oidc.PendingTTL + time.Second)
	_, err = r2.Finish(t.Context(), cookie, back, code)
	assert.Equal(t, fault.EUNAUTHORIZED, fault.Code(err), "a sign-in that took too long is refused")
	assert.ErrorContains(t, err, "too long")
}
