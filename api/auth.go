package api

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"regexp"
	"strings"

	"github.com/hitlbot/hitl/api/wire"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
)

var userPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$`)

// authenticate puts the principal into the request context. With tokens
// configured, /api/ requires "Authorization: Bearer <token>" and acts as
// the token's principal (so does /metrics); without tokens everyone is the local person
// ("local", or "local:"+user).
func (s *Server) authenticate(r *http.Request) (*http.Request, error) {
	if len(s.tokens) == 0 {
		user := r.Header.Get(wire.UserHeader)
		if user != "" && !userPattern.MatchString(user) {
			return r, fault.Errorf(fault.EINVALID, "%s must be 1-64 letters, digits, '.', '_', '@' or '-'", wire.UserHeader)
		}
		return r.WithContext(auth.WithEdge(auth.WithPrincipal(r.Context(), auth.LocalPrincipal(user)), auth.EdgeAPI)), nil
	}
	if !strings.HasPrefix(r.URL.Path, "/api/") && r.URL.Path != "/api" && r.URL.Path != "/metrics" {
		return r, nil
	}
	p, ok := s.tokenPrincipal(r.Header.Get("Authorization"))
	if !ok {
		return r, fault.Errorf(fault.EUNAUTHORIZED, "a valid bearer token is required: send Authorization: Bearer <token>")
	}
	return r.WithContext(auth.WithEdge(auth.WithPrincipal(r.Context(), p), auth.EdgeAPI)), nil
}

// tokenPrincipal finds the principal a bearer token belongs to. Tokens are
// compared as SHA-256 sums in constant time, and every token is compared,
// so neither the length nor the position of a match leaks through timing.
func (s *Server) tokenPrincipal(header string) (auth.Principal, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return auth.Principal{}, false
	}
	tok = strings.TrimSpace(tok)
	if tok == "" {
		return auth.Principal{}, false
	}
	sum := sha256.Sum256([]byte(tok))
	var p auth.Principal
	found := 0
	for _, t := range s.tokens {
		if subtle.ConstantTimeCompare(sum[:], t.sum[:]) == 1 {
			p, found = t.principal, 1
		}
	}
	return p, found == 1
}
