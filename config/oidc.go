package config

import (
	"net/mail"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// OIDC is web.oidc: sign-in with an OpenID Connect provider (Okta,
// Microsoft Entra, Google Workspace, Keycloak, Slack's
// https://slack.com). Who may do what is Roles, never the sign-in alone.
type OIDC struct {
	// Issuer is the provider's issuer URL (its discovery document is
	// Issuer/.well-known/openid-configuration): https, or http on
	// loopback for tests.
	Issuer string `yaml:"issuer"`
	// ClientID and ClientSecretFile are the client registered with the
	// provider (the secret in a file, never in the config).
	ClientID         string `yaml:"client_id"`
	ClientSecretFile string `yaml:"client_secret_file"`
	// Scopes asked for; default openid, email, profile (openid is
	// always asked).
	Scopes []string `yaml:"scopes"`
	// AllowedDomains are the only e-mail domains that may sign in (empty:
	// the roles alone decide).
	AllowedDomains []string `yaml:"allowed_domains"`
	// GroupsClaim names the ID token claim that lists the person's groups
	// (like groups); empty: groups grant nothing.
	GroupsClaim string `yaml:"groups_claim"`
	// SlackTeam is the Slack workspace (T…) of hitl's Slack app: with Sign
	// in with Slack (issuer https://slack.com), a person of this
	// workspace is their Slack user on the web; a token from another
	// workspace is refused.
	SlackTeam string `yaml:"slack_team"`
	// Roles: who answers, steers, administers: alice@example.com,
	// @example.com, group:NAME.
	Roles OIDCRoles `yaml:"roles"`
}

// OIDCRoles is web.oidc.roles.
type OIDCRoles struct {
	Answer  []string `yaml:"answer"`
	Control []string `yaml:"control"`
	Admin   []string `yaml:"admin"`
}

// DefaultOIDCScopes are asked for when web.oidc.scopes is empty.
var DefaultOIDCScopes = []string{"openid", "email", "profile"}

// AskedScopes are the scopes the sign-in asks for: openid first, always.
func (o OIDC) AskedScopes() []string {
	s := o.Scopes
	if len(s) == 0 {
		s = DefaultOIDCScopes
	}
	if !slices.Contains(s, "openid") {
		s = append([]string{"openid"}, s...)
	}
	return s
}

// validate checks web.oidc.
func (o OIDC) validate() error {
	u, err := url.Parse(o.Issuer)
	switch {
	case o.Issuer == "":
		return bad("web.oidc.issuer", "", "the identity provider's issuer URL is required, like https://accounts.google.com or https://slack.com")
	case err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "":
		return bad("web.oidc.issuer", o.Issuer, "want the issuer URL, like https://login.example.com/realms/corp")
	case u.Scheme != "https" && !(u.Scheme == "http" && loopbackHost(u.Hostname())):
		return bad("web.oidc.issuer", o.Issuer, "want https (http only on loopback, for tests)")
	case o.ClientID == "":
		return bad("web.oidc.client_id", "", "the client id registered with the identity provider is required")
	case o.ClientSecretFile == "":
		return bad("web.oidc.client_secret_file", "", "a file holding the client secret is required")
	}
	if o.SlackTeam != "" && !slackTeamPattern.MatchString(o.SlackTeam) {
		return bad("web.oidc.slack_team", o.SlackTeam, "want the Slack workspace id, like T0123ABCD")
	}
	if strings.TrimSuffix(o.Issuer, "/") == "https://slack.com" && o.SlackTeam == "" {
		return bad("web.oidc.slack_team", "", "Sign in with Slack needs the workspace id of hitl's Slack app (T…): a token from another workspace names someone else")
	}
	for _, d := range o.AllowedDomains {
		if d = strings.TrimPrefix(d, "@"); d == "" || strings.ContainsAny(d, "@ /") || !strings.Contains(d, ".") {
			return bad("web.oidc.allowed_domains", d, "want an e-mail domain like example.com")
		}
	}
	granted := 0
	for key, list := range map[string][]string{"answer": o.Roles.Answer, "control": o.Roles.Control, "admin": o.Roles.Admin} {
		for _, e := range list {
			if err := roleEntry(e); err != "" {
				return bad("web.oidc.roles."+key, e, err)
			}
			granted++
		}
	}
	if granted == 0 {
		return bad("web.oidc.roles", "", "grant someone a role (answer, control, admin) by e-mail, @domain or group:NAME: signing in alone grants nothing")
	}
	for _, list := range [][]string{o.Roles.Answer, o.Roles.Control, o.Roles.Admin} {
		for _, e := range list {
			if strings.HasPrefix(e, "group:") && o.GroupsClaim == "" {
				return bad("web.oidc.groups_claim", "", "roles name groups ("+e+"): say which ID token claim lists them, like groups")
			}
		}
	}
	return nil
}

// roleEntry checks one role entry; "" when it is well formed.
func roleEntry(e string) string {
	switch {
	case strings.HasPrefix(e, "group:"):
		if strings.TrimPrefix(e, "group:") == "" {
			return "a group needs its name, like group:oncall"
		}
	case strings.HasPrefix(e, "@"):
		if d := e[1:]; d == "" || strings.ContainsAny(d, "@ /") || !strings.Contains(d, ".") {
			return "want a domain like @example.com"
		}
	default:
		if a, err := mail.ParseAddress(e); err != nil || a.Address != e {
			return "want an e-mail address (alice@example.com), a domain (@example.com) or a group (group:NAME)"
		}
	}
	return ""
}

var slackTeamPattern = regexp.MustCompile(`^T[A-Z0-9]{2,20}$`)

func loopbackHost(h string) bool {
	return h == "localhost" || h == "127.0.0.1" || h == "::1"
}
