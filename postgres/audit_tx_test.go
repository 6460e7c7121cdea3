package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/pgtest"
	"github.com/hitlbot/hitl/postgres"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAuditRollsBackWithTheWrite: a record that cannot be written takes
// its write with it — no session and no sign-out without its record (a NUL byte PostgreSQL refuses in the record stands for any
// failure of the append).
func TestAuditRollsBackWithTheWrite(t *testing.T) {
	ctx := context.Background()
	db, err := postgres.Open(ctx, pgtest.DB(t))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	at := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	bad := auth.Principal{ID: "api:a\x00b", Scopes: []auth.Scope{auth.ScopeAnswer}}
	good := auth.Principal{ID: "api:alice", Scopes: []auth.Scope{auth.ScopeAnswer}}

	err = db.PutSignIn(ctx, &hitl.SignIn{ID: "s_1", Principal: good, ExpiresAt: at.Add(time.Hour)}, hitl.SignInAudit(bad, "oidc", false, at))
	require.Error(t, err)
	_, err = db.SignIn(ctx, "s_1")
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err), "no session without its record")

	require.NoError(t, db.PutSignIn(ctx, &hitl.SignIn{ID: "s_2", Principal: good, ExpiresAt: at.Add(time.Hour)}))
	_, err = db.DeleteSignIn(ctx, "s_2", func(*hitl.SignIn) *hitl.AuditRecord { return hitl.SignInAudit(bad, "", true, at) })
	require.Error(t, err)
	_, err = db.SignIn(ctx, "s_2")
	assert.NoError(t, err, "no sign-out without its record")

	head, _, err := db.AuditHead(ctx)
	require.NoError(t, err)
	assert.Zero(t, head.Seq, "and no record of what did not happen")
}
