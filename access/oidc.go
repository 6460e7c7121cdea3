package access

import (
	"net/mail"
	"slices"
	"strings"

	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
)

// OIDCClaims is who an identity provider says a person is, from an ID
// token the web edge verified (issuer, audience, expiry, nonce, signature).
type OIDCClaims struct {
	Subject       string
	Email         string
	EmailVerified bool
	// Groups are the groups claim (web.oidc.groups_claim), as the
	// provider sent them.
	Groups []string
	// SlackUser is the Slack user id of a Sign in with Slack token
	// (https://slack.com/user_id, with its workspace SlackTeam from
	// https://slack.com/team_id), or the Slack user whose profile has the
	// person's verified e-mail (the web edge looks it up,
	// users.lookupByEmail; SlackTeam empty): the same person as their
	// Slack clicks and tokens.
	SlackUser, SlackTeam string
}

// OIDCRoles is who may do what after signing in with the identity
// provider (web.oidc): each list holds named people (alice@example.com),
// e-mail domains (@example.com) and groups (group:NAME). Admin implies
// every scope.
type OIDCRoles struct {
	// AllowedDomains, when set, are the only e-mail domains that may
	// sign in at all.
	AllowedDomains []string
	// SlackTeam is the Slack workspace (T…) whose users hitl's Slack
	// edge knows (web.oidc.slack_team): a Sign in with Slack token is
	// taken as its Slack user only from this workspace.
	SlackTeam string
	Answer    []string
	Control   []string
	Admin     []string
}

// OIDCPrincipal is the rule of what a person signed in through OpenID
// Connect may do: only what config grants them by name, e-mail domain or
// group, never anything for holding a valid token. Their e-mail must be
// verified by the provider and, with allowed_domains, of one of those
// domains (compared whole: evil-example.com is not example.com). A person
// the config grants nothing is refused. A person with a Slack user is
// that Slack user (slack:U…), one person with their Slack clicks for
// every rule (a quorum counts them once, auth.Person); others are
// oidc:EMAIL. A Sign in with Slack token from a workspace other than
// SlackTeam is refused: its user id names someone else's account.
func (r OIDCRoles) OIDCPrincipal(c OIDCClaims) (auth.Principal, error) {
	email, domain, err := verifiedEmail(c)
	if err != nil {
		return auth.Principal{}, err
	}
	if len(r.AllowedDomains) > 0 && !slices.ContainsFunc(r.AllowedDomains, func(d string) bool { return sameDomain(d, domain) }) {
		return auth.Principal{}, fault.Errorf(fault.EFORBIDDEN, "%s may not sign in: e-mail domain %s is not in web.oidc.allowed_domains", email, domain)
	}
	if c.SlackTeam != "" && c.SlackTeam != r.SlackTeam {
		return auth.Principal{}, fault.Errorf(fault.EFORBIDDEN, "%s signed in with Slack workspace %s, not this service's (web.oidc.slack_team %q): sign in with the workspace hitl's Slack app is in", email, c.SlackTeam, r.SlackTeam)
	}
	var scopes []auth.Scope
	for _, role := range []struct {
		scope   auth.Scope
		entries []string
	}{{auth.ScopeAnswer, r.Answer}, {auth.ScopeControl, r.Control}, {auth.ScopeAdmin, r.Admin}} {
		if slices.ContainsFunc(role.entries, func(e string) bool { return grants(e, email, domain, c.Groups) }) {
			scopes = append(scopes, role.scope)
		}
	}
	if len(scopes) == 0 {
		return auth.Principal{}, fault.Errorf(fault.EFORBIDDEN, "%s signed in with the identity provider, but web.oidc.roles grants them nothing: ask an admin to add them, their domain or a group of theirs", email)
	}
	p := auth.Principal{ID: "oidc:" + email, Scopes: scopes, SlackUser: c.SlackUser}
	if c.SlackUser != "" {
		p.ID = "slack:" + c.SlackUser
	}
	return p, nil
}

// verifiedEmail returns c's e-mail, lower-cased, and its domain, if the
// provider verified it.
func verifiedEmail(c OIDCClaims) (email, domain string, err error) {
	addr, perr := mail.ParseAddress(c.Email)
	if perr != nil || addr.Address != strings.TrimSpace(c.Email) || addr.Name != "" {
		return "", "", fault.Errorf(fault.EFORBIDDEN, "the identity provider sent no usable e-mail address (%q): hitl names people by it", c.Email)
	}
	if !c.EmailVerified {
		return "", "", fault.Errorf(fault.EFORBIDDEN, "the identity provider has not verified %s: hitl trusts only verified addresses", c.Email)
	}
	email = strings.ToLower(addr.Address)
	at := strings.LastIndexByte(email, '@')
	return email, email[at+1:], nil
}

// grants reports whether role entry e names this person: their e-mail,
// their domain (@example.com) or one of their groups (group:NAME, exact).
func grants(e, email, domain string, groups []string) bool {
	switch {
	case strings.HasPrefix(e, "group:"):
		return slices.Contains(groups, strings.TrimPrefix(e, "group:"))
	case strings.HasPrefix(e, "@"):
		return sameDomain(strings.TrimPrefix(e, "@"), domain)
	}
	return strings.EqualFold(strings.TrimSpace(e), email)
}

func sameDomain(a, b string) bool {
	return strings.EqualFold(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(a), "@"), "."), b)
}
