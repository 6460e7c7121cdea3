// Package oidctest starts a real OpenID provider for tests: zitadel/oidc's
// op package (an OpenID-certified library) as its example server runs it,
// with its example users (test-user@HOST and test-user2, password
// verysecure; e-mails test-user@zitadel.ch and test-user2@zitadel.ch,
// verified). The provider's signing keys rotate on demand (Rotate,
// Retire), and it can issue Sign in with Slack's claims (Slack).
package oidctest

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// Client and Secret are the client registered with every provider.
const (
	Client = "hitl-test"
	Secret = "hitl-secret"
)

// Password is every example user's password.
const Password = "verysecure"

// The example users' subjects.
const (
	TestUser  = "id1" // test-user@HOST, test-user@zitadel.ch
	TestUser2 = "id2" // test-user2, test-user2@zitadel.ch
)

// Sign in with Slack's claims (Slack's OpenID Connect ID tokens).
const (
	SlackUserClaim = "https://slack.com/user_id"
	SlackTeamClaim = "https://slack.com/team_id"
)

var (
	mu        sync.Mutex
	redirects []string
)

// Register allows redirect as one of the client's redirect URIs (the
// example storage keeps one client table for every provider of the
// process, so each registration keeps the earlier ones).
func Register(redirect string) {
	mu.Lock()
	defer mu.Unlock()
	redirects = append(redirects, redirect)
	storage.RegisterClients(storage.WebClient(Client, Secret, redirects...))
}

// Provider is a running provider. Its first key signs until Rotate.
type Provider struct {
	Issuer string
	*storage.Storage

	mu    sync.Mutex
	keys  []*key // keys[0] signs; every one is published
	team  string
	slack map[string]string // subject → Slack user id
}

// Start starts a provider on loopback and returns its issuer; it stops
// when the test ends.
func Start(t testing.TB) string {
	t.Helper()
	return StartProvider(t).Issuer
}

// StartProvider starts a provider on loopback; it stops when the test
// ends.
func StartProvider(t testing.TB) *Provider {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	p := &Provider{Issuer: "http://" + srv.Listener.Addr().String()}
	p.Storage = storage.NewStorage(storage.NewUserStore(p.Issuer))
	p.keys = []*key{newKey(t)}
	srv.Config.Handler = exampleop.SetupServer(p.Issuer, p, nil, false)
	srv.Start()
	t.Cleanup(srv.Close)
	return p
}

// Slack makes the provider Sign in with Slack: every ID token of a
// subject in users (subject → Slack user id) carries Slack's user and
// team claims.
func (p *Provider) Slack(team string, users map[string]string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.team, p.slack = team, users
}

// Rotate makes a new key sign from now on and returns the id of the one
// it replaces, which stays published until Retire.
func (p *Provider) Rotate(t testing.TB) (old string) {
	t.Helper()
	k := newKey(t)
	p.mu.Lock()
	defer p.mu.Unlock()
	old = p.keys[0].id
	p.keys = append([]*key{k}, p.keys...)
	return old
}

// Retire stops publishing key id: a token it signed no longer verifies.
func (p *Provider) Retire(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.keys = slices.DeleteFunc(p.keys, func(k *key) bool { return k.id == id && len(p.keys) > 1 })
}

// SigningKey is the key that signs now (op.Storage).
func (p *Provider) SigningKey(context.Context) (op.SigningKey, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.keys[0], nil
}

// SignatureAlgorithms: RS256 (op.Storage).
func (p *Provider) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}

// KeySet is every published key (op.Storage).
func (p *Provider) KeySet(context.Context) ([]op.Key, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]op.Key, len(p.keys))
	for i, k := range p.keys {
		out[i] = publicKey{k}
	}
	return out, nil
}

// SetUserinfoFromRequest adds Slack's claims to the ID token of a Slack
// user (op.CanSetUserinfoFromRequest).
func (p *Provider) SetUserinfoFromRequest(ctx context.Context, info *oidc.UserInfo, req op.IDTokenRequest, scopes []string) error {
	if err := p.Storage.SetUserinfoFromRequest(ctx, info, req, scopes); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if u, ok := p.slack[req.GetSubject()]; ok {
		info.AppendClaims(SlackUserClaim, u)
		info.AppendClaims(SlackTeamClaim, p.team)
	}
	return nil
}

type key struct {
	id  string
	key *rsa.PrivateKey
}

func newKey(t testing.TB) *key {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return &key{id: rand.Text(), key: k}
}

func (k *key) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k *key) Key() any                                    { return k.key }
func (k *key) ID() string                                  { return k.id }

type publicKey struct{ k *key }

func (p publicKey) ID() string                         { return p.k.id }
func (p publicKey) Algorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (p publicKey) Use() string                        { return "sig" }
func (p publicKey) Key() any                           { return &p.k.key.PublicKey }
