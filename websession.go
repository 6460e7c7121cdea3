package hitl

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"time"
)

// Web sessions: people sign in to the web inbox with a personal token or a
// one-time link, and get a session, a server-side record found by the
// SHA-256 of the secret the browser holds in a cookie (the store never
// holds a secret that signs anybody in). A record expires, and deleting it
// signs out at once.

// Lifetimes of web sessions and sign-in links.
const (
	DefaultWebSessionTTL = 12 * time.Hour
	// SignInLinkTTL is how long a one-time link (Slack's /hitl web) holds.
	SignInLinkTTL = 10 * time.Minute
	// webSessionPrune bounds how many expired records one sign-in deletes.
	webSessionPrune = 64
)

// WebSession is a signed-in browser (or, with Link set, a one-time link
// not used yet).
type WebSession struct {
	// ID is the hex SHA-256 of the secret.
	ID        string    `json:"id"`
	Principal Principal `json:"principal"`
	// CSRF is the token every form of the session carries.
	CSRF      string    `json:"csrf"`
	CreatedAt time.Time `json:"createdAt"`
	ExpiresAt time.Time `json:"expiresAt"`
	// Link marks a one-time sign-in link: it signs in once, then is gone.
	Link bool `json:"link,omitempty"`
}

// Expired reports whether the session or link no longer holds at now.
func (s *WebSession) Expired(now time.Time) bool { return !now.Before(s.ExpiresAt) }

// WebSessionStore keeps web sessions. It only stores: the service decides
// who signs in and what expired means.
type WebSessionStore interface {
	// PutWebSession stores s under s.ID, replacing what was there.
	PutWebSession(ctx context.Context, s *WebSession) error
	// WebSession returns record id (expired ones too), or ENOTFOUND.
	WebSession(ctx context.Context, id string) (*WebSession, error)
	// DeleteWebSession deletes record id in one transaction and returns
	// it, or ENOTFOUND: of two concurrent deletes one gets the record.
	DeleteWebSession(ctx context.Context, id string) (*WebSession, error)
	// PruneWebSessions deletes up to limit records whose ExpiresAt is at
	// or before now and returns how many it deleted. Its cost grows with
	// the number deleted.
	PruneWebSessions(ctx context.Context, now time.Time, limit int) (int, error)
}

// MaySignIn is the rule for signing in to the web inbox: a person, who
// answers, steers or administers. An agent's token (ask only) cannot: a
// browser session is a person's.
func (a Access) MaySignIn(p Principal) error {
	if p.Local || p.Has(ScopeAnswer) || p.Has(ScopeControl) || p.Has(ScopeAdmin) {
		return nil
	}
	return Errorf(EFORBIDDEN, "%s may not sign in to the web inbox: it needs the answer, control or admin scope (an agent's ask-only token cannot)", p.ID)
}

// SessionID is the record id of a session or link secret.
func SessionID(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

func randomSecret() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// SignIn starts a web session for p, lasting ttl (DefaultWebSessionTTL
// when 0), if the rules let p sign in, and returns the secret the browser
// keeps. A refusal is audited.
func (s *Service) SignIn(ctx context.Context, p Principal, ttl time.Duration) (secret string, ws *WebSession, err error) {
	if err := s.access.MaySignIn(p); err != nil {
		return "", nil, s.refused(ctx, p, ActionSignIn, &Question{}, err)
	}
	return s.putSession(ctx, p, ttl, false)
}

// NewSignInLink makes a one-time link secret that signs p in once, within
// SignInLinkTTL.
func (s *Service) NewSignInLink(ctx context.Context, p Principal) (string, error) {
	if err := s.access.MaySignIn(p); err != nil {
		return "", s.refused(ctx, p, ActionSignIn, &Question{}, err)
	}
	secret, _, err := s.putSession(ctx, p, SignInLinkTTL, true)
	return secret, err
}

// RedeemSignInLink uses link secret (once: a second use is refused) and
// starts a session for the principal it names.
func (s *Service) RedeemSignInLink(ctx context.Context, secret string, ttl time.Duration) (string, *WebSession, error) {
	id := SessionID(secret)
	link, err := s.store.WebSession(ctx, id)
	if err == nil && link.Link {
		// Of two uses at once, the one that deletes it signs in.
		link, err = s.store.DeleteWebSession(ctx, id)
	}
	switch {
	case ErrorCode(err) == ENOTFOUND || (err == nil && !link.Link):
		return "", nil, Errorf(EUNAUTHORIZED, "this sign-in link is unknown or was already used: ask for a new one with /hitl web")
	case err != nil:
		return "", nil, err
	case link.Expired(s.clock.Now()):
		return "", nil, Errorf(EUNAUTHORIZED, "this sign-in link expired (links hold %s): ask for a new one with /hitl web", SignInLinkTTL)
	}
	return s.SignIn(ctx, link.Principal, ttl)
}

func (s *Service) putSession(ctx context.Context, p Principal, ttl time.Duration, link bool) (string, *WebSession, error) {
	if ttl <= 0 {
		ttl = DefaultWebSessionTTL
	}
	now := s.clock.Now()
	if _, err := s.store.PruneWebSessions(ctx, now, webSessionPrune); err != nil {
		return "", nil, err
	}
	secret := randomSecret()
	ws := &WebSession{ID: SessionID(secret), Principal: p, CSRF: randomSecret(), CreatedAt: now, ExpiresAt: now.Add(ttl), Link: link}
	if err := s.store.PutWebSession(ctx, ws); err != nil {
		return "", nil, err
	}
	return secret, ws, nil
}

// WebSession returns the live session of secret, or EUNAUTHORIZED when
// there is none (never was, signed out, expired: an expired one is
// deleted).
func (s *Service) WebSession(ctx context.Context, secret string) (*WebSession, error) {
	if secret == "" {
		return nil, Errorf(EUNAUTHORIZED, "sign in first")
	}
	ws, err := s.store.WebSession(ctx, SessionID(secret))
	switch {
	case ErrorCode(err) == ENOTFOUND || (err == nil && ws.Link):
		return nil, Errorf(EUNAUTHORIZED, "your session ended: sign in again")
	case err != nil:
		return nil, err
	case ws.Expired(s.clock.Now()):
		if _, err := s.store.DeleteWebSession(ctx, ws.ID); err != nil && ErrorCode(err) != ENOTFOUND {
			return nil, err
		}
		return nil, Errorf(EUNAUTHORIZED, "your session expired: sign in again")
	}
	return ws, nil
}

// SignOut ends the session of secret (nothing to end is no error).
func (s *Service) SignOut(ctx context.Context, secret string) error {
	if secret == "" {
		return nil
	}
	if _, err := s.store.DeleteWebSession(ctx, SessionID(secret)); err != nil && ErrorCode(err) != ENOTFOUND {
		return err
	}
	return nil
}

// ActionSignIn is signing in to the web inbox (audited when refused).
const ActionSignIn Action = "sign_in"
