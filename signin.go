package hitl

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/hitlbot/hitl/auth"
)

// Sign-ins: people sign in to the web inbox with a personal token or a
// one-time link, and get a session, a server-side record found by the
// SHA-256 of the secret the browser holds in a cookie (the store never
// holds a secret that signs anybody in). A record expires, and deleting it
// signs out at once.

// SignIn is a signed-in browser (or, with Link set, a one-time link
// not used yet).
type SignIn struct {
	// ID is the hex SHA-256 of the secret.
	ID        string         `json:"id"`
	Principal auth.Principal `json:"principal"`
	// CSRF is the token every form of the session carries.
	CSRF      string    `json:"csrf"`
	CreatedAt time.Time `json:"createdAt"`
	ExpiresAt time.Time `json:"expiresAt"`
	// Link marks a one-time sign-in link: it signs in once, then is gone.
	Link bool `json:"link,omitempty"`
}

// Expired reports whether the session or link no longer holds at now.
func (s *SignIn) Expired(now time.Time) bool { return !now.Before(s.ExpiresAt) }

// SignInStore keeps sign-ins. It only stores: the service decides
// who signs in and what expired means.
type SignInStore interface {
	// PutSignIn stores s under s.ID, replacing what was there, and
	// appends audit (its signed_in record) in the same transaction.
	PutSignIn(ctx context.Context, s *SignIn, audit ...*AuditRecord) error
	// SignIn returns record id (expired ones too), or ENOTFOUND.
	SignIn(ctx context.Context, id string) (*SignIn, error)
	// DeleteSignIn deletes record id in one transaction and returns
	// it, or ENOTFOUND: of two concurrent deletes one gets the record.
	// The records auditOf makes of the deleted one (its signed_out
	// record; nil: none) are appended in the same transaction.
	DeleteSignIn(ctx context.Context, id string, auditOf ...func(gone *SignIn) *AuditRecord) (*SignIn, error)
	// PruneSignIns deletes up to limit records whose ExpiresAt is at
	// or before now and returns how many it deleted. Its cost grows with
	// the number deleted.
	PruneSignIns(ctx context.Context, now time.Time, limit int) (int, error)
}

// SessionID is the record id of a session or link secret.
func SignInID(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}
