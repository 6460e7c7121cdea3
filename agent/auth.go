package agent

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"regexp"
	"strings"

	"github.com/hitlbot/hitl"
)

// UserHeader names the person or agent behind a request to a server
// without tokens (loopback use): the actor becomes "local:"+value.
const UserHeader = "X-Hitl-User"

var userPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$`)

// authenticate puts the actor into the request context. With tokens
// configured, /api/ requires "Authorization: Bearer <token>" and the actor
// is "api:"+name; without tokens everyone is "local" (or "local:"+user).
func (s *Server) authenticate(r *http.Request) (*http.Request, error) {
	if len(s.tokens) == 0 {
		actor := "local"
		if u := r.Header.Get(UserHeader); u != "" {
			if !userPattern.MatchString(u) {
				return r, hitl.Errorf(hitl.EINVALID, "%s must be 1-64 letters, digits, '.', '_', '@' or '-'", UserHeader)
			}
			actor += ":" + u
		}
		return r.WithContext(hitl.WithActor(r.Context(), actor)), nil
	}
	if !strings.HasPrefix(r.URL.Path, "/api/") && r.URL.Path != "/api" {
		return r, nil
	}
	name, ok := s.tokenName(r.Header.Get("Authorization"))
	if !ok {
		return r, hitl.Errorf(hitl.EUNAUTHORIZED, "a valid bearer token is required: send Authorization: Bearer <token>")
	}
	return r.WithContext(hitl.WithActor(r.Context(), "api:"+name)), nil
}

// tokenName finds the agent a bearer token belongs to. Tokens are compared
// as SHA-256 sums in constant time, and every token is compared, so neither
// the length nor the position of a match leaks through timing.
func (s *Server) tokenName(header string) (string, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	if tok == "" {
		return "", false
	}
	sum := sha256.Sum256([]byte(tok))
	name, found := "", 0
	for _, t := range s.tokens {
		if subtle.ConstantTimeCompare(sum[:], t.sum[:]) == 1 {
			name, found = t.name, 1
		}
	}
	return name, found == 1
}
