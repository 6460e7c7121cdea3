package main

import (
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/agent"
	"github.com/hitlbot/hitl/web"
)

// web is the web inbox on the API's listener, with the API's tokens.
func (m *Main) web() *web.Handler {
	byID := map[string]hitl.Principal{}
	for _, t := range m.Config.Tokens {
		p := t.Principal()
		byID[p.ID] = p
	}
	base := m.Config.BaseURL()
	if m.Config.Web.URL == "" && m.ln != nil {
		base = m.URL()
	}
	return web.New(web.Config{Service: m.Service, Tokenless: m.api.Tokenless(), TokenPrincipal: m.api.TokenPrincipal,
		TokenByID:    func(id string) (hitl.Principal, bool) { p, ok := byID[id]; return p, ok },
		LoopbackHost: agent.LoopbackHost, BaseURL: base, SessionTTL: time.Duration(m.Config.Web.SessionTTL),
		Clock: m.Clock, Logger: m.Logger})
}
