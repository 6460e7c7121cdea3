package auth

import (
	"context"
	"slices"
	"strings"

	"github.com/hitlbot/hitl/fault"
)

// Scope is a right a token grants. Slack users get theirs from config
// (answerers, admins); the local person of a tokenless server has them all.
type Scope string

const (
	// ScopeAsk: create questions, wait for them, receive their outcomes,
	// cancel them and read their runs — one's own only.
	ScopeAsk Scope = "ask"
	// ScopeAnswer: list pending questions, answer and cancel them.
	ScopeAnswer Scope = "answer"
	// ScopeControl: steer runs (pause, resume, cancel, escalate, redirect).
	ScopeControl Scope = "control"
	// ScopeAdmin: everything, including the audit log and configuration.
	ScopeAdmin Scope = "admin"

	// scopeObserve is the Slack bot's own right: read every question and
	// its events to render them, never answer. No token can hold it.
	scopeObserve Scope = "observe"
	// ScopeScrape is a request on the metrics listener of its own
	// (metrics_listen, a private scrape network): it may scrape, nothing
	// else. No token can hold it.
	ScopeScrape Scope = "scrape"
)

// Scopes lists the scopes a token may hold, in the order docs show them.
var Scopes = []Scope{ScopeAsk, ScopeAnswer, ScopeControl, ScopeAdmin}

// ParseScope reads a scope name as written in config (case-insensitive).
func ParseScope(s string) (Scope, error) {
	sc := Scope(strings.ToLower(strings.TrimSpace(s)))
	if slices.Contains(Scopes, sc) {
		return sc, nil
	}
	return "", fault.Errorf(fault.EINVALID, "unknown scope %q: use ask, answer, control or admin", s)
}

// Principal is who acts: a token (api:NAME), a Slack user (slack:U…), the
// one local person of a tokenless server (local, local:USER), or the
// service itself (system). Edges build it once per request; the root's
// Access rules decide what it may do.
type Principal struct {
	// ID is what respondedBy, asker and the audit log record.
	ID string
	// Scopes are the rights held. Admin implies every other.
	Scopes []Scope
	// SlackUser is the Slack user this principal is, or speaks for (a
	// token's slack_user): the same person for every rule.
	SlackUser string
	// Groups are the Slack user groups SlackUser belongs to, as far as the
	// edge looked them up (the groups the question and config mention).
	Groups []string
	// Local marks the person of a tokenless, loopback-only server: it
	// trusts everything that runs on the machine.
	Local bool
}

// TokenPrincipal is the principal of a bearer token. A token without
// scopes gets ask only: least privilege.
func TokenPrincipal(name string, scopes []Scope, slackUser string) Principal {
	if len(scopes) == 0 {
		scopes = []Scope{ScopeAsk}
	}
	return Principal{ID: "api:" + name, Scopes: slices.Clone(scopes), SlackUser: slackUser}
}

// LocalPrincipal is the person at a tokenless server: every scope. user,
// when known, names who typed the command ("local:alice").
func LocalPrincipal(user string) Principal {
	id := "local"
	if user != "" {
		id += ":" + user
	}
	return Principal{ID: id, Scopes: slices.Clone(Scopes), Local: true}
}

// PersonName is how people see principal id wherever hitl shows who asked,
// answered or steered (the CLI, the web pages, Slack, the terminal lines of
// hitl serve): the one local person of a tokenless hitl is "local" however
// its clients named themselves ("local:alice" is "local"), as the rules
// treat every local principal as one person; every other principal by
// its id (api:NAME, slack:U…). Records keep the id as it was.
func PersonName(id string) string { return Person(id, "") }

// SystemPrincipal is the service's own transitions (timeouts).
var SystemPrincipal = Principal{ID: ActorSystem}

// ObserverPrincipal is an edge that shows questions to people (the Slack
// bot): it reads every question and event, and can decide nothing.
func ObserverPrincipal(id string) Principal {
	return Principal{ID: id, Scopes: []Scope{scopeObserve}}
}

// ScrapePrincipal is a request on metrics_listen: it may scrape /metrics
// and do nothing else.
var ScrapePrincipal = Principal{ID: "metrics_listen", Scopes: []Scope{ScopeScrape}}

// ActorSystem is the actor of the service's own transitions (timeouts).
const ActorSystem = "system"

// Has reports whether p holds scope s (admin holds every scope).
func (p Principal) Has(s Scope) bool {
	return slices.Contains(p.Scopes, s) || (s != scopeObserve && s != ScopeScrape && slices.Contains(p.Scopes, ScopeAdmin))
}

// OverseesPolicy reports whether p oversees the approval policy for every
// agent: sees the rules people taught with "Approve & always allow" (what
// was learned, by whom), revokes them, and checks the policy as another
// agent. Those who answer, and admins, do; an agent sees and checks only
// what concerns itself.
func (p Principal) OverseesPolicy() bool {
	return p.Local || p.Has(ScopeAnswer)
}

// SeesAll reports whether p may read every question, not only its own.
func (p Principal) SeesAll() bool {
	return p.Has(ScopeAnswer) || p.Has(scopeObserve)
}

// Same reports whether p is principal id itself, or a token
// speaking for slackUser (a question's Asker and AskerUser, say).
func (p Principal) Same(id, slackUser string) bool {
	if p.ID == id {
		return true
	}
	return p.SlackUser != "" && p.SlackUser == slackUser
}

// Approves reports whether p is one of a rule's approvers: its Slack user
// or a group of it, or its token's name.
func (p Principal) Approves(ids []string) bool {
	name, isToken := strings.CutPrefix(p.ID, "api:")
	return p.InAny(ids) || (isToken && slices.Contains(ids, name))
}

// InAny reports whether p's Slack user or one of its groups is in ids.
func (p Principal) InAny(ids []string) bool {
	for _, id := range ids {
		if p.SlackUser != "" && id == p.SlackUser {
			return true
		}
		if slices.Contains(p.Groups, id) {
			return true
		}
	}
	return false
}

type principalKey struct{}

// WithPrincipal returns a context that carries who is acting. Edges set it
// once, after identifying the caller.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the principal in ctx; without one, an anonymous
// principal that may do nothing.
func PrincipalFrom(ctx context.Context) Principal {
	if p, ok := ctx.Value(principalKey{}).(Principal); ok && p.ID != "" {
		return p
	}
	return Principal{ID: "anonymous"}
}

// ActorFrom returns the id of the principal in ctx ("anonymous" when none).
func ActorFrom(ctx context.Context) string { return PrincipalFrom(ctx).ID }

// IsLocal reports whether a principal id is the local person of a
// tokenless server ("local", "local:alice"): one person, the machine.
func IsLocal(id string) bool { return id == "local" || strings.HasPrefix(id, "local:") }

// Is reports whether p is the principal id names: the same id, the same
// Slack user, or both local principals of a tokenless server.
func (p Principal) Is(id string) bool {
	if p.ID == id || (p.Local && IsLocal(id)) {
		return true
	}
	u, ok := strings.CutPrefix(id, "slack:")
	return ok && p.SlackUser != "" && p.SlackUser == u
}
