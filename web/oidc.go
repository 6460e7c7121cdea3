package web

import (
	"context"
	"net/http"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
)

// OIDC is sign-in with the company's identity provider (web.oidc): the
// flow (package oidc) says who the person is, Roles what they may do,
// SignIn starts their session (service.SignIns.SignInOIDC: audited).
type OIDC struct {
	Flow interface {
		Start() (redirect, cookie string, err error)
		Finish(ctx context.Context, cookie, state, code string) (access.OIDCClaims, error)
	}
	Roles  access.OIDCRoles
	SignIn func(ctx context.Context, p auth.Principal, ttl time.Duration) (string, *hitl.SignIn, error)
	// SlackUserOf finds the Slack user whose profile has a verified
	// e-mail ("" when none; nil without Slack): that person is their
	// Slack user on the web too (slack.Bot.UserByEmail).
	SlackUserOf func(ctx context.Context, email string) (string, error)
}

// oidcCookie binds a sign-in at the provider to the browser that started
// it: it holds the sign-in sealed (its state, nonce and PKCE verifier), so
// any replica finishes it. SameSite=Lax: the callback is a top-level
// navigation from the provider's site.
const oidcCookie = "hitl_oidc"

// routeOIDC adds the sign-in routes when the provider is configured.
func (h *Handler) routeOIDC() {
	if h.cfg.OIDC == nil {
		return
	}
	h.mux.HandleFunc("GET /login/oidc", h.handleOIDCStart)
	h.mux.HandleFunc("GET /login/oidc/callback", h.handleOIDCCallback)
}

func (h *Handler) handleOIDCStart(w http.ResponseWriter, r *http.Request) {
	redirect, cookie, err := h.cfg.OIDC.Flow.Start()
	if err != nil {
		h.fail(w, r, err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: oidcCookie, Value: cookie, Path: "/login/oidc", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: h.secure(r), MaxAge: 600})
	http.Redirect(w, r, redirect, http.StatusFound)
}

func (h *Handler) handleOIDCCallback(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: oidcCookie, Value: "", Path: "/login/oidc", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: h.secure(r), MaxAge: -1})
	q := r.URL.Query()
	if e := q.Get("error"); e != "" {
		h.fail(w, r, fault.Errorf(fault.EUNAUTHORIZED, "the identity provider did not sign you in: %s", e))
		return
	}
	cookie := ""
	if c, err := r.Cookie(oidcCookie); err == nil {
		cookie = c.Value
	}
	claims, err := h.cfg.OIDC.Flow.Finish(r.Context(), cookie, q.Get("state"), q.Get("code"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if claims.SlackUser == "" && claims.EmailVerified && h.cfg.OIDC.SlackUserOf != nil {
		// One person across edges: the Slack user with this e-mail.
		if claims.SlackUser, err = h.cfg.OIDC.SlackUserOf(r.Context(), claims.Email); err != nil {
			h.fail(w, r, err)
			return
		}
	}
	p, err := h.cfg.OIDC.Roles.OIDCPrincipal(claims)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	secret, ws, err := h.cfg.OIDC.SignIn(r.Context(), p, h.cfg.SignInTTL)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.setSignInCookie(w, r, secret, ws)
	// A page of our own, not a redirect: the browser arrived from the
	// provider's site, and the session cookie (SameSite=Strict) is sent
	// only on a navigation that starts here.
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte(`<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=/"><title>Signed in · hitl</title><p><a href="/">Signed in: open the inbox</a></p>`))
}
