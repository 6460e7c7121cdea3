package web

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"net/url"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
)

// Cookies: the sign-in's secret, and the sign-in form's CSRF token (a
// double-submit cookie: no sign-in holds one yet).
const (
	signInCookie = "hitl_session"
	loginCookie  = "hitl_login"
	// maxFormBytes bounds a form post.
	maxFormBytes = 1 << 20
)

// signIn is the signed-in person of a request.
type signIn struct {
	ws     *hitl.SignIn
	p      auth.Principal
	secret string
}

type signInKey struct{}

// checkOrigin applies, before any route, the rules a browser's request
// must pass: a tokenless server answers only requests addressed to a
// loopback name (DNS rebinding), and a form post must come from this
// site (its Origin, when sent, is ours; Sec-Fetch-Site, when sent, is not
// cross-site). The CSRF token is checked on top, per form.
func (h *Handler) checkOrigin(r *http.Request) error {
	if h.cfg.Tokenless && (h.cfg.LoopbackHost == nil || !h.cfg.LoopbackHost(r.Host)) {
		return fault.Errorf(fault.EFORBIDDEN, "this hitl server has no tokens, so its inbox answers only at a loopback address, not %q: open http://127.0.0.1:PORT/, or configure tokens", r.Host)
	}
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return nil
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
		return fault.Errorf(fault.EFORBIDDEN, "a form posted from another site is refused")
	}
	if origin := r.Header.Get("Origin"); origin != "" && !h.ownOrigin(r, origin) {
		return fault.Errorf(fault.EFORBIDDEN, "a form posted from another site (%s) is refused", origin)
	}
	return nil
}

// ownOrigin reports whether origin is this service: the address the
// request was sent to, or web.url's.
func (h *Handler) ownOrigin(r *http.Request, origin string) bool {
	scheme := "http://"
	if r.TLS != nil {
		scheme = "https://"
	}
	if strings.EqualFold(origin, scheme+r.Host) {
		return true
	}
	if u, err := url.Parse(h.cfg.BaseURL); err == nil && u.Host != "" && strings.EqualFold(origin, u.Scheme+"://"+u.Host) {
		return true
	}
	return false
}

// signedIn runs next for a signed-in person, with their principal in the
// request's context; a form post must carry the sign-in's CSRF token.
// Without a sign-in: the local person of a tokenless server is signed in
// on a page load; otherwise a page goes to /login and anything else is
// refused.
func (h *Handler) signedIn(next func(http.ResponseWriter, *http.Request, *signIn)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s, err := h.signInOf(r)
		if err != nil && fault.Code(err) != fault.EUNAUTHORIZED {
			h.fail(w, r, err)
			return
		}
		if s == nil {
			switch {
			case r.Method != http.MethodGet:
				h.fail(w, r, err)
				return
			case h.cfg.Tokenless:
				if s, err = h.localSignIn(w, r); err != nil {
					h.fail(w, r, err)
					return
				}
			case r.URL.Path == "/events":
				h.fail(w, r, err)
				return
			default:
				http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
		}
		if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
			if err := r.ParseForm(); err != nil {
				h.fail(w, r, fault.Errorf(fault.EINVALID, "the form could not be read: %v", err))
				return
			}
			if !sameSecret(r.PostForm.Get("csrf"), s.ws.CSRF) {
				h.fail(w, r, fault.Errorf(fault.EFORBIDDEN, "the form's CSRF token is missing or wrong: reload the page and try again"))
				return
			}
		}
		ctx := context.WithValue(auth.WithEdge(auth.WithPrincipal(r.Context(), s.p), auth.EdgeWeb), signInKey{}, s)
		next(w, r.WithContext(ctx), s)
	}
}

// signInOf finds the request's live sign-in (nil and EUNAUTHORIZED when
// there is none). A token's sign-in acts with the token's principal as
// configured now: a token taken out of config signs its sign-ins out.
func (h *Handler) signInOf(r *http.Request) (*signIn, error) {
	c, err := r.Cookie(signInCookie)
	if err != nil {
		return nil, fault.Errorf(fault.EUNAUTHORIZED, "sign in first")
	}
	ws, err := h.svc.SignIns.SignedIn(r.Context(), c.Value)
	if err != nil {
		return nil, err
	}
	p := ws.Principal
	if h.cfg.Tokenless != p.Local {
		return nil, fault.Errorf(fault.EUNAUTHORIZED, "the server's sign-in changed: sign in again")
	}
	if strings.HasPrefix(p.ID, "api:") && h.cfg.TokenByID != nil {
		cur, ok := h.cfg.TokenByID(p.ID)
		if !ok || h.access.MaySignIn(cur) != nil {
			return nil, fault.Errorf(fault.EUNAUTHORIZED, "the token you signed in with is no longer configured with these rights: sign in again")
		}
		p = cur
	}
	return &signIn{ws: ws, p: p, secret: c.Value}, nil
}

// localSignIn is the sign-in of a browser without one on a tokenless
// loopback service: the one sign-in this handler started for the local
// person, while it lives, else a new one. Everyone who reaches a tokenless
// service is that one person, so sharing it gives nobody more, and a
// client that keeps no cookie (a probe, a script) does not store a sign-in
// per request.
func (h *Handler) localSignIn(w http.ResponseWriter, r *http.Request) (*signIn, error) {
	h.local.Lock()
	defer h.local.Unlock()
	if h.local.secret != "" {
		if ws, err := h.svc.SignIns.SignedIn(r.Context(), h.local.secret); err == nil && ws.Principal.Local {
			h.setSignInCookie(w, r, h.local.secret, ws)
			return &signIn{ws: ws, p: ws.Principal, secret: h.local.secret}, nil
		} else if err != nil && fault.Code(err) != fault.EUNAUTHORIZED {
			return nil, err
		}
	}
	s, err := h.startSignIn(w, r, auth.LocalPrincipal(""))
	if err != nil {
		return nil, err
	}
	h.local.secret = s.secret
	return s, nil
}

// startSignIn signs p in and sets the sign-in cookie.
func (h *Handler) startSignIn(w http.ResponseWriter, r *http.Request, p auth.Principal) (*signIn, error) {
	secret, ws, err := h.svc.SignIns.SignIn(r.Context(), p, h.cfg.SignInTTL)
	if err != nil {
		return nil, err
	}
	h.setSignInCookie(w, r, secret, ws)
	return &signIn{ws: ws, p: ws.Principal, secret: secret}, nil
}

// setSignInCookie sets the sign-in cookie to last as long as the sign-in
// has left, by Max-Age (seconds from now as the browser counts them), not
// an Expires date: a browser whose clock differs from the service's still
// keeps it for the sign-in's time.
func (h *Handler) setSignInCookie(w http.ResponseWriter, r *http.Request, secret string, ws *hitl.SignIn) {
	left := int(ws.ExpiresAt.Sub(h.cfg.Clock.Now()).Seconds())
	if left <= 0 {
		left = -1 // already over: delete it
	}
	http.SetCookie(w, &http.Cookie{Name: signInCookie, Value: secret, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: h.secure(r), MaxAge: left})
}

// secure reports whether cookies must be Secure: served over TLS, or
// reached at an https web.url (behind a proxy that ends TLS).
func (h *Handler) secure(r *http.Request) bool {
	return r.TLS != nil || strings.HasPrefix(h.cfg.BaseURL, "https://")
}

func sameSecret(a, b string) bool {
	return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

func randomToken() string {
	var b [24]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// loginToken sets the sign-in form's CSRF cookie and returns its value.
func (h *Handler) loginToken(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(loginCookie); err == nil && len(c.Value) >= 32 {
		return c.Value
	}
	tok := randomToken()
	http.SetCookie(w, &http.Cookie{Name: loginCookie, Value: tok, Path: "/login", HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: h.secure(r), MaxAge: 3600})
	return tok
}

// checkLoginToken checks a sign-in form post's CSRF token.
func (h *Handler) checkLoginToken(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		return fault.Errorf(fault.EINVALID, "the form could not be read: %v", err)
	}
	c, err := r.Cookie(loginCookie)
	if err != nil || !sameSecret(r.PostForm.Get("csrf"), c.Value) {
		return fault.Errorf(fault.EFORBIDDEN, "the sign-in form's CSRF token is missing or wrong: reload the page and try again")
	}
	return nil
}

// localNext is where to go after signing in: a path on this site only,
// else "/". A path starts with one "/": no scheme, no relative path, no
// "//" or "/\" (browsers read both as another host). It holds no control
// character (browsers drop tabs and newlines, so "/\t/evil" would become
// "//evil"), no backslash (read as "/") and no invalid UTF-8; and it is
// not /login, nor anything http.Redirect's cleaning turns into one of
// these ("/./\evil" is "/\evil" once cleaned).
func localNext(next string) string {
	odd := func(r rune) bool { return r == '\\' || r == utf8.RuneError || unicode.IsControl(r) }
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.ContainsFunc(next, odd) {
		return "/"
	}
	p, _, _ := strings.Cut(next, "?")
	if c := path.Clean(p); strings.HasPrefix(c, "//") || strings.HasPrefix(c, "/login") {
		return "/"
	}
	return next
}

func (h *Handler) handleLoginForm(w http.ResponseWriter, r *http.Request) {
	if h.cfg.Tokenless {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	h.render(w, r, http.StatusOK, "login", &page{Title: "Sign in", CSRF: h.loginToken(w, r),
		Data: loginView{Next: localNext(r.URL.Query().Get("next"))}})
}

type loginView struct {
	Next  string
	Link  string // a one-time link's secret, to post
	Error string
}

func (h *Handler) handleLogin(w http.ResponseWriter, r *http.Request) {
	if h.cfg.Tokenless {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	if err := h.checkLoginToken(w, r); err != nil {
		h.fail(w, r, err)
		return
	}
	next := localNext(r.PostForm.Get("next"))
	again := func(status int, msg string) {
		h.render(w, r, status, "login", &page{Title: "Sign in", CSRF: h.loginToken(w, r), Data: loginView{Next: next, Error: msg}})
	}
	if link := r.PostForm.Get("link"); link != "" {
		secret, ws, err := h.svc.SignIns.RedeemSignInLink(r.Context(), link, h.cfg.SignInTTL)
		if err != nil {
			again(status(err), fault.Message(err))
			return
		}
		h.setSignInCookie(w, r, secret, ws)
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	p, ok := h.cfg.TokenPrincipal(strings.TrimSpace(r.PostForm.Get("token")))
	if !ok {
		again(http.StatusUnauthorized, "That token is not one this service knows.")
		return
	}
	if _, err := h.startSignIn(w, r, p); err != nil {
		again(status(err), fault.Message(err))
		return
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// handleLink shows a one-time link's "Sign in" button: the link is used
// by the post, so that a preview fetching the address uses nothing.
func (h *Handler) handleLink(w http.ResponseWriter, r *http.Request) {
	if h.cfg.Tokenless {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	h.render(w, r, http.StatusOK, "login", &page{Title: "Sign in", CSRF: h.loginToken(w, r),
		Data: loginView{Next: "/", Link: r.URL.Query().Get("t")}})
}

func (h *Handler) handleLogout(w http.ResponseWriter, r *http.Request, s *signIn) {
	if err := h.svc.SignIns.SignOut(r.Context(), s.secret); err != nil {
		h.fail(w, r, err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: signInCookie, Value: "", Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: h.secure(r), MaxAge: -1})
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}
