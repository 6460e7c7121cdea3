package main

import (
	"context"
	"os"
	"strings"
	"time"

	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/oidc"
	"github.com/hitlbot/hitl/web"
)

// oidcSignIn is sign-in with web.oidc's identity provider (nil when it is
// not configured): the provider is discovered at start.
func (m *Main) oidcSignIn(ctx context.Context) (*web.OIDC, error) {
	o := m.Config.Web.OIDC
	if o == nil {
		return nil, nil
	}
	b, err := os.ReadFile(o.ClientSecretFile)
	if err != nil {
		return nil, fault.Errorf(fault.EINVALID, "web.oidc.client_secret_file: %v", err)
	}
	// Sign-ins in progress are sealed into the browser's cookie under the
	// seal key replicas share (bound to sign-ins: no sealed answer opens
	// as one), so a sign-in started on one replica finishes on any.
	cipher, err := sealer(m.Config)
	if err != nil {
		return nil, err
	}
	rp, err := oidc.New(ctx, oidc.Config{Issuer: o.Issuer, ClientID: o.ClientID, ClientSecret: strings.TrimSpace(string(b)),
		RedirectURL: m.webBase() + "/login/oidc/callback", Scopes: o.AskedScopes(), GroupsClaim: o.GroupsClaim, Clock: m.Clock, Cipher: cipher})
	if err != nil {
		return nil, err
	}
	w := &web.OIDC{Flow: rp, SignIn: m.Service.SignIns.SignInOIDC,
		Roles: access.OIDCRoles{AllowedDomains: o.AllowedDomains, SlackTeam: o.SlackTeam,
			Answer: o.Roles.Answer, Control: o.Roles.Control, Admin: o.Roles.Admin}}
	if m.Bot != nil {
		w.SlackUserOf = m.Bot.UserByEmail
	}
	return w, nil
}

// oidcTimeout bounds the provider's discovery at start.
const oidcTimeout = 30 * time.Second
