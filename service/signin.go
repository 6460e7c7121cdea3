package service

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
)

// SignIns keeps the web inbox's sign-in sessions.
type SignIns struct {
	store   hitl.SignInStore
	clock   hitl.Clock
	access  access.Access
	audited bool // sign-ins and sign-outs are audited (the service keeps an audit trail)
	guard   gate
}

// SignInsConfig is what SignIns use (ServiceConfig says what each field
// does); Audited says the store's sign-ins and sign-outs are audited.
type SignInsConfig struct {
	Store   hitl.SignInStore
	Clock   hitl.Clock
	Access  access.Access
	Audited bool
	Guard   *Guard
}

// NewSignIns returns the sign-in sessions.
func NewSignIns(cfg SignInsConfig) *SignIns {
	if cfg.Clock == nil {
		cfg.Clock = hitl.SystemClock{}
	}
	return &SignIns{store: cfg.Store, clock: cfg.Clock, access: cfg.Access, audited: cfg.Audited, guard: cfg.Guard}
}

// SignIn starts a sign-in for p, lasting ttl (DefaultSignInTTL
// when 0), if the rules let p sign in, and returns the secret the browser
// keeps. A refusal is audited, and so is the sign-in (in the transaction
// that stores its session: no session without its record).
func (s *SignIns) SignIn(ctx context.Context, p auth.Principal, ttl time.Duration) (secret string, ws *hitl.SignIn, err error) {
	return s.signIn(ctx, p, ttl, SignInToken)
}

// SignInOIDC starts a session for p, who signed in with the identity
// provider (web.oidc): audited as such.
func (s *SignIns) SignInOIDC(ctx context.Context, p auth.Principal, ttl time.Duration) (string, *hitl.SignIn, error) {
	return s.signIn(ctx, p, ttl, SignInOIDC)
}

// How people sign in, as the audit trail records it (AuditRecord.Action).
const (
	SignInOIDC  = "oidc"  // the identity provider (web.oidc)
	SignInToken = "token" // a personal token pasted into /login
	SignInLink  = "link"  // a one-time link from Slack's /hitl web
)

func (s *SignIns) signIn(ctx context.Context, p auth.Principal, ttl time.Duration, how string) (string, *hitl.SignIn, error) {
	if err := s.access.MaySignIn(p); err != nil {
		return "", nil, s.guard.refused(ctx, p, auth.ActionSignIn, &hitl.Question{}, err)
	}
	return s.putSession(ctx, p, ttl, false, hitl.SignInAudit(p, how, false, s.clock.Now()))
}

// NewSignInLink makes a one-time link secret that signs p in once, within
// SignInLinkTTL.
func (s *SignIns) NewSignInLink(ctx context.Context, p auth.Principal) (string, error) {
	if err := s.access.MaySignIn(p); err != nil {
		return "", s.guard.refused(ctx, p, auth.ActionSignIn, &hitl.Question{}, err)
	}
	secret, _, err := s.putSession(ctx, p, SignInLinkTTL, true, nil)
	return secret, err
}

// RedeemSignInLink uses link secret (once: a second use is refused) and
// starts a session for the principal it names.
func (s *SignIns) RedeemSignInLink(ctx context.Context, secret string, ttl time.Duration) (string, *hitl.SignIn, error) {
	id := hitl.SignInID(secret)
	link, err := s.store.SignIn(ctx, id)
	if err == nil && link.Link {
		// Of two uses at once, the one that deletes it signs in.
		link, err = s.store.DeleteSignIn(ctx, id)
	}
	switch {
	case fault.Code(err) == fault.ENOTFOUND || (err == nil && !link.Link):
		return "", nil, fault.Errorf(fault.EUNAUTHORIZED, "this sign-in link is unknown or was already used: ask for a new one with /hitl web")
	case err != nil:
		return "", nil, err
	case link.Expired(s.clock.Now()):
		return "", nil, fault.Errorf(fault.EUNAUTHORIZED, "this sign-in link expired (links hold %s): ask for a new one with /hitl web", SignInLinkTTL)
	}
	return s.signIn(ctx, link.Principal, ttl, SignInLink)
}

// putSession stores a session (or link) for p with its audit record
// (nil: none), in one transaction.
func (s *SignIns) putSession(ctx context.Context, p auth.Principal, ttl time.Duration, link bool, audit *hitl.AuditRecord) (string, *hitl.SignIn, error) {
	if ttl <= 0 {
		ttl = DefaultSignInTTL
	}
	now := s.clock.Now()
	if _, err := s.store.PruneSignIns(ctx, now, signInPrune); err != nil {
		return "", nil, err
	}
	secret := randomSecret()
	ws := &hitl.SignIn{ID: hitl.SignInID(secret), Principal: p, CSRF: randomSecret(), CreatedAt: now, ExpiresAt: now.Add(ttl), Link: link}
	var recs []*hitl.AuditRecord
	if audit != nil && s.audited {
		recs = append(recs, audit)
	}
	if err := s.store.PutSignIn(context.WithoutCancel(ctx), ws, recs...); err != nil {
		return "", nil, err
	}
	return secret, ws, nil
}

// SignIn returns the live session of secret, or EUNAUTHORIZED when
// there is none (never was, signed out, expired: an expired one is
// deleted).
func (s *SignIns) SignedIn(ctx context.Context, secret string) (*hitl.SignIn, error) {
	if secret == "" {
		return nil, fault.Errorf(fault.EUNAUTHORIZED, "sign in first")
	}
	ws, err := s.store.SignIn(ctx, hitl.SignInID(secret))
	switch {
	case fault.Code(err) == fault.ENOTFOUND || (err == nil && ws.Link):
		return nil, fault.Errorf(fault.EUNAUTHORIZED, "your session ended: sign in again")
	case err != nil:
		return nil, err
	case ws.Expired(s.clock.Now()):
		if _, err := s.store.DeleteSignIn(ctx, ws.ID); err != nil && fault.Code(err) != fault.ENOTFOUND {
			return nil, err
		}
		return nil, fault.Errorf(fault.EUNAUTHORIZED, "your session expired: sign in again")
	}
	return ws, nil
}

// SignOut ends the session of secret (nothing to end is no error).
func (s *SignIns) SignOut(ctx context.Context, secret string) error {
	if secret == "" {
		return nil
	}
	var audit []func(*hitl.SignIn) *hitl.AuditRecord
	if s.audited {
		audit = append(audit, func(gone *hitl.SignIn) *hitl.AuditRecord {
			return hitl.SignInAudit(gone.Principal, "", true, s.clock.Now())
		})
	}
	_, err := s.store.DeleteSignIn(context.WithoutCancel(ctx), hitl.SignInID(secret), audit...)
	if fault.Code(err) == fault.ENOTFOUND {
		return nil
	}
	return err
}

// Lifetimes of sign-ins and sign-in links.
const (
	DefaultSignInTTL = 12 * time.Hour
	// SignInLinkTTL is how long a one-time link (Slack's /hitl web) holds.
	SignInLinkTTL = 10 * time.Minute
	// signInPrune bounds how many expired records one sign-in deletes.
	signInPrune = 64
)

func randomSecret() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}
