package hitl

import (
	"strings"

	"github.com/hitlbot/hitl/auth"
)

// RunOwnerOf reads the reserved form of a run id, NAME@PRINCIPAL, where
// PRINCIPAL is a principal id (api:TOKEN, slack:USER, local or
// local:USER): only that principal (or the same person) may start it.
// Default run names take this form, so nobody can take another's first.
func RunOwnerOf(id string) (owner string, ok bool) {
	for i := strings.IndexByte(id, '@'); i >= 0; {
		owner = id[i+1:]
		if auth.IsLocal(owner) || strings.HasPrefix(owner, "api:") || strings.HasPrefix(owner, "slack:") {
			return owner, true // the first such '@': token names may hold '@'
		}
		j := strings.IndexByte(owner, '@')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return "", false
}

// DefaultRunID is principal p's own run called name: name@ID, a run id
// only p can start (RunOwnerOf).
func DefaultRunID(name string, p auth.Principal) string { return name + "@" + p.ID }

// KeyOf is the key a question's idempotency key is held under in its
// run: the asker's own, so that one asker's key never finds another's
// question, even where runs are shared (admins, unowned runs). The local
// principals of a tokenless server are one asker.
func KeyOf(asker, key string) string { return PersonOf(asker) + "\x00" + key }

// OwnedBy reports whether p is the same person as the principal that
// started run.
func (run *Run) OwnedBy(p auth.Principal) bool {
	return p.Is(run.Asker) || (p.SlackUser != "" && p.SlackUser == run.AskerUser)
}

// PersonOf is the one id of the person principal id names where ids are
// kept (learned rules' agents, idempotency keys): the local principals of
// a tokenless server are one person, "local"; every other id is its own.
func PersonOf(id string) string {
	if auth.IsLocal(id) {
		return "local"
	}
	return id
}
