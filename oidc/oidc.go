package oidc

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"time"

	gooidc "github.com/coreos/go-oidc/v3/oidc"
	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/fault"
	"golang.org/x/oauth2"
)

// Config is the relying party's side of web.oidc.
type Config struct {
	Issuer, ClientID, ClientSecret string
	// RedirectURL is hitl's callback (…/login/oidc/callback).
	RedirectURL string
	Scopes      []string
	// GroupsClaim names the claim that lists the person's groups.
	GroupsClaim string
	// HTTPClient reaches the provider (nil: http.DefaultClient).
	HTTPClient *http.Client
	Clock      hitl.Clock
	// Cipher seals a sign-in in progress into the browser's cookie
	// (the service's seal: under seal_key_file, every replica opens what
	// another sealed, so a sign-in started on one finishes on any).
	Cipher Cipher
}

// Cipher seals and opens (hitl.Sealer's methods; package seal).
type Cipher interface {
	Seal(plain, bound []byte) ([]byte, error)
	Open(data, bound []byte) ([]byte, bool)
}

// sealBound binds a sealed sign-in to its use: nothing else hitl seals
// under the same key opens as one.
var sealBound = []byte("hitl oidc sign-in v1")

// PendingTTL is how long a sign-in may take at the provider.
const PendingTTL = 10 * time.Minute

// Sign in with Slack's claims: the Slack user and their workspace.
const (
	slackUserClaim = "https://slack.com/user_id"
	slackTeamClaim = "https://slack.com/team_id"
)

// RelyingParty runs sign-ins against one provider. A sign-in in
// progress (its state, nonce and PKCE verifier) lives sealed in the
// browser's cookie until the provider sends the browser back, to this
// replica or another: no replica keeps it, so no sticky sessions.
type RelyingParty struct {
	cfg      Config
	oauth    oauth2.Config
	verifier *gooidc.IDTokenVerifier
	provider *gooidc.Provider
	ctx      context.Context // carries the HTTP client for go-oidc and oauth2
}

// pending is a sign-in in progress, as sealed in the cookie.
type pending struct {
	State    string    `json:"s"`
	Nonce    string    `json:"n"`
	Verifier string    `json:"v"`
	At       time.Time `json:"t"`
}

// New discovers the provider (issuer/.well-known/openid-configuration).
func New(ctx context.Context, cfg Config) (*RelyingParty, error) {
	if cfg.Clock == nil {
		cfg.Clock = hitl.SystemClock{}
	}
	if cfg.Cipher == nil {
		return nil, fault.Errorf(fault.EINTERNAL, "oidc: no cipher to seal sign-ins with")
	}
	if cfg.HTTPClient != nil {
		ctx = gooidc.ClientContext(ctx, cfg.HTTPClient)
	}
	ctx = context.WithoutCancel(ctx)
	p, err := gooidc.NewProvider(ctx, cfg.Issuer)
	if err != nil {
		return nil, fault.Errorf(fault.EUNAVAILABLE, "web.oidc.issuer %s: %v", cfg.Issuer, err)
	}
	scopes := slices.Clone(cfg.Scopes)
	if !slices.Contains(scopes, gooidc.ScopeOpenID) {
		scopes = append([]string{gooidc.ScopeOpenID}, scopes...)
	}
	var meta struct {
		JWKS string   `json:"jwks_uri"`
		Algs []string `json:"id_token_signing_alg_values_supported"`
	}
	if err := p.Claims(&meta); err != nil || meta.JWKS == "" {
		return nil, fault.Errorf(fault.EUNAVAILABLE, "web.oidc.issuer %s: its discovery document names no jwks_uri", cfg.Issuer)
	}
	keys := &freshKeys{ctx: ctx, url: meta.JWKS, clock: cfg.Clock}
	return &RelyingParty{cfg: cfg, ctx: ctx, provider: p,
		oauth: oauth2.Config{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, RedirectURL: cfg.RedirectURL,
			Endpoint: p.Endpoint(), Scopes: scopes},
		verifier: gooidc.NewVerifier(cfg.Issuer, keys, &gooidc.Config{ClientID: cfg.ClientID, Now: cfg.Clock.Now, SupportedSigningAlgs: supportedAlgs(meta.Algs)})}, nil
}

// supportedAlgs are the provider's ID token algorithms go-oidc can check
// (none: RS256, the one every provider must support).
func supportedAlgs(algs []string) []string {
	return slices.DeleteFunc(slices.Clone(algs), func(a string) bool { return !slices.Contains(checkable, a) })
}

var checkable = []string{gooidc.RS256, gooidc.RS384, gooidc.RS512, gooidc.ES256, gooidc.ES384, gooidc.ES512, gooidc.PS256, gooidc.PS384, gooidc.PS512, gooidc.EdDSA}

func random() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// Start begins a sign-in: the provider's address to send the browser to,
// and the cookie the browser keeps meanwhile: the sign-in (state, nonce,
// PKCE verifier, when it started) sealed, so that only this browser can
// finish it, on any replica, within PendingTTL.
func (rp *RelyingParty) Start() (redirect, cookie string, err error) {
	p := pending{State: random(), Nonce: random(), Verifier: oauth2.GenerateVerifier(), At: rp.cfg.Clock.Now().UTC()}
	plain, err := json.Marshal(p)
	if err != nil {
		return "", "", err
	}
	sealed, err := rp.cfg.Cipher.Seal(plain, sealBound)
	if err != nil {
		return "", "", fault.Errorf(fault.EINTERNAL, "sealing the sign-in: %v", err)
	}
	return rp.oauth.AuthCodeURL(p.State, gooidc.Nonce(p.Nonce), oauth2.S256ChallengeOption(p.Verifier)),
		base64.RawURLEncoding.EncodeToString(sealed), nil
}

// opened is the sign-in sealed in cookie (false: none, or not sealed by
// this service's key for a sign-in).
func (rp *RelyingParty) opened(cookie string) (pending, bool) {
	data, err := base64.RawURLEncoding.DecodeString(cookie)
	if err != nil || cookie == "" {
		return pending{}, false
	}
	plain, ok := rp.cfg.Cipher.Open(data, sealBound)
	var p pending
	if !ok || json.Unmarshal(plain, &p) != nil || p.State == "" {
		return pending{}, false
	}
	return p, true
}

// Finish completes the sign-in the provider redirected back with: the
// browser's cookie must hold a sign-in this service sealed, started less
// than PendingTTL ago, whose state is the one the provider sent back;
// the code is exchanged with its PKCE verifier (the provider takes a code
// once: a replay is refused) and the ID token verified (issuer, audience,
// expiry, signature by the provider's keys, nonce). It returns who the
// provider says the person is.
func (rp *RelyingParty) Finish(ctx context.Context, cookie, state, code string) (access.OIDCClaims, error) {
	p, ok := rp.opened(cookie)
	if !ok {
		return access.OIDCClaims{}, fault.Errorf(fault.EUNAUTHORIZED, "this sign-in was not started in this browser, or not by this service: sign in again")
	}
	if state == "" || p.State != state {
		return access.OIDCClaims{}, fault.Errorf(fault.EUNAUTHORIZED, "this sign-in was not started in this browser (state mismatch): sign in again")
	}
	if age := rp.cfg.Clock.Now().Sub(p.At); age > PendingTTL || age < -time.Minute {
		return access.OIDCClaims{}, fault.Errorf(fault.EUNAUTHORIZED, "this sign-in took too long (more than %s): sign in again", PendingTTL)
	}
	if code == "" {
		return access.OIDCClaims{}, fault.Errorf(fault.EUNAUTHORIZED, "the identity provider sent no code: sign in again")
	}
	tok, err := rp.oauth.Exchange(rp.exchangeContext(ctx), code, oauth2.VerifierOption(p.Verifier))
	if err != nil {
		return access.OIDCClaims{}, fault.Errorf(fault.EUNAUTHORIZED, "the identity provider refused the sign-in code: %v", err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return access.OIDCClaims{}, fault.Errorf(fault.EUNAUTHORIZED, "the identity provider sent no ID token")
	}
	c, err := rp.Verify(ctx, raw, p.Nonce)
	if err != nil || c.Email != "" {
		return c, err
	}
	// The provider keeps the e-mail for its userinfo endpoint: ask it,
	// with the access token, for the same subject.
	uctx := ctx
	if rp.cfg.HTTPClient != nil {
		uctx = gooidc.ClientContext(ctx, rp.cfg.HTTPClient)
	}
	info, err := rp.provider.UserInfo(uctx, oauth2.StaticTokenSource(tok))
	if err != nil {
		return access.OIDCClaims{}, fault.Errorf(fault.EUNAUTHORIZED, "the identity provider's userinfo: %v", err)
	}
	if info.Subject != c.Subject {
		return access.OIDCClaims{}, fault.Errorf(fault.EUNAUTHORIZED, "the identity provider's userinfo is another subject's")
	}
	c.Email, c.EmailVerified = info.Email, info.EmailVerified
	return c, nil
}

func (rp *RelyingParty) exchangeContext(ctx context.Context) context.Context {
	if rp.cfg.HTTPClient != nil {
		return context.WithValue(ctx, oauth2.HTTPClient, rp.cfg.HTTPClient)
	}
	return ctx
}

// Verify checks an ID token (signature by the provider's current keys,
// issuer, audience, expiry) and its nonce, and reads its claims.
func (rp *RelyingParty) Verify(ctx context.Context, raw, nonce string) (access.OIDCClaims, error) {
	if rp.cfg.HTTPClient != nil {
		ctx = gooidc.ClientContext(ctx, rp.cfg.HTTPClient)
	}
	id, err := rp.verifier.Verify(ctx, raw)
	if err != nil {
		return access.OIDCClaims{}, fault.Errorf(fault.EUNAUTHORIZED, "the ID token does not verify: %v", err)
	}
	if id.Nonce != nonce {
		return access.OIDCClaims{}, fault.Errorf(fault.EUNAUTHORIZED, "the ID token is not this sign-in's (nonce mismatch)")
	}
	var all map[string]any
	if err := id.Claims(&all); err != nil {
		return access.OIDCClaims{}, fault.Errorf(fault.EUNAUTHORIZED, "the ID token's claims cannot be read: %v", err)
	}
	c := access.OIDCClaims{Subject: id.Subject}
	c.Email, _ = all["email"].(string)
	c.EmailVerified, _ = all["email_verified"].(bool)
	c.SlackUser, _ = all[slackUserClaim].(string)
	if c.SlackUser != "" {
		if c.SlackTeam, _ = all[slackTeamClaim].(string); c.SlackTeam == "" {
			return access.OIDCClaims{}, fault.Errorf(fault.EUNAUTHORIZED, "the ID token names Slack user %s but no workspace (%s)", c.SlackUser, slackTeamClaim)
		}
	}
	if rp.cfg.GroupsClaim != "" {
		switch g := all[rp.cfg.GroupsClaim].(type) {
		case []any:
			for _, x := range g {
				if s, ok := x.(string); ok {
					c.Groups = append(c.Groups, s)
				}
			}
		case string:
			c.Groups = []string{g}
		}
	}
	return c, nil
}

// String names the provider.
func (rp *RelyingParty) String() string { return fmt.Sprintf("OpenID provider %s", rp.cfg.Issuer) }
