package main

import (
	"context"
	"net/url"
	"time"

	"github.com/hitlbot/hitl/api"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/web"
)

// web is the web inbox on the API's listener, with the API's tokens.
func (m *Main) web() *web.Handler {
	byID := map[string]auth.Principal{}
	for _, t := range m.Config.Tokens {
		p := t.Principal()
		byID[p.ID] = p
	}
	return web.New(web.Config{Services: webServicesOf(m.Service), Tokenless: m.api.Tokenless(), TokenPrincipal: m.api.TokenPrincipal,
		TokenByID:    func(id string) (auth.Principal, bool) { p, ok := byID[id]; return p, ok },
		LoopbackHost: api.LoopbackHost, BaseURL: m.webBase(), SignInTTL: time.Duration(m.Config.Web.SessionTTL),
		Clock: m.Clock, Logger: m.Logger, OIDC: m.oidc})
}

// webLink is the one-time link Slack's /hitl web sends p: it signs them in
// to the web inbox once, within ten minutes.
func (m *Main) webLink(ctx context.Context, p auth.Principal) (string, error) {
	if len(m.Config.Tokens) == 0 {
		return "", fault.Errorf(fault.EINVALID, "this hitl has no tokens, so its web inbox serves only the machine it runs on, with no sign-in: open %s there", m.URL())
	}
	secret, err := m.Service.SignIns.NewSignInLink(ctx, p)
	if err != nil {
		return "", err
	}
	return m.webBase() + "/login/link?t=" + url.QueryEscape(secret), nil
}

// webBase is where people reach the web inbox: web.url, or else this
// service's own address once it listens.
func (m *Main) webBase() string {
	if m.Config.Web.URL == "" && m.ln != nil {
		return m.URL()
	}
	return m.Config.BaseURL()
}
