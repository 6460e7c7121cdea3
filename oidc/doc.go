// Package oidc is the OpenID Connect relying party of the web inbox: the
// authorization code flow with PKCE, state and nonce against the
// provider of web.oidc (coreos/go-oidc for discovery and ID token
// verification against the provider's keys, refetched when a token names
// a key it does not know: rotation; golang.org/x/oauth2 for the code
// exchange). It says who a person is (access.OIDCClaims); the access
// package decides what they may do.
package oidc
