// Package oidctest starts a real OpenID provider for tests: zitadel/oidc's
// op package (an OpenID-certified library) as its example server runs it,
// with its example users (test-user@HOST and test-user2, password
// verysecure; e-mails test-user@zitadel.ch and test-user2@zitadel.ch,
// verified).
package oidctest

import (
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
)

// Client and Secret are the client registered with every provider.
const (
	Client = "hitl-test"
	Secret = "hitl-secret"
)

// Password is every example user's password.
const Password = "verysecure"

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

// Start starts a provider on loopback and returns its issuer; it stops
// when the test ends.
func Start(t testing.TB) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	issuer := "http://" + srv.Listener.Addr().String()
	srv.Config.Handler = exampleop.SetupServer(issuer, storage.NewStorage(storage.NewUserStore(issuer)), nil, false)
	srv.Start()
	t.Cleanup(srv.Close)
	return issuer
}
