package api

import "github.com/hitlbot/hitl/auth"

// What the web inbox (package web), on the same listener, shares with the
// API: the same tokens and the same loopback rule.

// TokenPrincipal returns the principal of bearer token tok, as the API
// would identify it.
func (s *Server) TokenPrincipal(tok string) (auth.Principal, bool) {
	return s.tokenPrincipal("Bearer " + tok)
}

// Tokenless reports whether the server has no tokens (it trusts the
// machine, and serves loopback names only).
func (s *Server) Tokenless() bool { return len(s.tokens) == 0 }

// LoopbackHost reports whether a Host header names localhost or a
// loopback address: what a tokenless server answers.
func LoopbackHost(host string) bool { return loopbackHost(host) }
