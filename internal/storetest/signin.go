package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runWebSessions is the contract of the sign-in methods.
func runSignIns(t *testing.T, open func(t *testing.T) hitl.SignInStore) {
	t.Run("a session is read back as it was put", func(t *testing.T) { testWebSessionRoundTrip(t, open(t)) })
	t.Run("an unknown session is not found", func(t *testing.T) { testWebSessionUnknown(t, open(t)) })
	t.Run("a deleted session is gone, and only one of two deletes gets it", func(t *testing.T) { testWebSessionDelete(t, open(t)) })
	t.Run("prune deletes only expired sessions, up to the limit", func(t *testing.T) { testWebSessionPrune(t, open(t)) })
	t.Run("a put replaces the session of the same id and its expiry", func(t *testing.T) { testWebSessionReplace(t, open(t)) })
}

func session(id string, expires time.Time) *hitl.SignIn {
	return &hitl.SignIn{ID: id, CSRF: "csrf-" + id, CreatedAt: t0, ExpiresAt: expires,
		Principal: auth.Principal{ID: "api:alice", Scopes: []auth.Scope{auth.ScopeAnswer, auth.ScopeControl}, SlackUser: "U0ALICE", Groups: []string{"S0OPS"}}}
}

func testWebSessionRoundTrip(t *testing.T, st hitl.SignInStore) {
	ctx := context.Background()
	want := session("s1", t0.Add(time.Hour))
	want.Link = true
	require.NoError(t, st.PutSignIn(ctx, want))
	got, err := st.SignIn(ctx, "s1")
	require.NoError(t, err)
	assert.Equal(t, want.ID, got.ID)
	assert.Equal(t, want.CSRF, got.CSRF)
	assert.True(t, got.Link)
	assert.True(t, want.ExpiresAt.Equal(got.ExpiresAt))
	assert.Equal(t, want.Principal, got.Principal)
	got.Principal.Scopes[0] = auth.ScopeAdmin // a copy: the store's record is untouched
	again, err := st.SignIn(ctx, "s1")
	require.NoError(t, err)
	assert.Equal(t, auth.ScopeAnswer, again.Principal.Scopes[0])
}

func testWebSessionUnknown(t *testing.T, st hitl.SignInStore) {
	ctx := context.Background()
	_, err := st.SignIn(ctx, "nobody")
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err))
	_, err = st.DeleteSignIn(ctx, "nobody")
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err))
	assert.Error(t, st.PutSignIn(ctx, &hitl.SignIn{}), "a session needs an id")
}

func testWebSessionDelete(t *testing.T, st hitl.SignInStore) {
	ctx := context.Background()
	require.NoError(t, st.PutSignIn(ctx, session("s1", t0.Add(time.Hour))))
	require.NoError(t, st.PutSignIn(ctx, session("s2", t0.Add(time.Hour))))
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws, err := st.DeleteSignIn(ctx, "s1")
			if err == nil {
				assert.Equal(t, "s1", ws.ID)
				mu.Lock()
				got++
				mu.Unlock()
			} else {
				assert.Equal(t, fault.ENOTFOUND, fault.Code(err))
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, 1, got, "exactly one delete gets the record (single use)")
	_, err := st.SignIn(ctx, "s1")
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err))
	_, err = st.SignIn(ctx, "s2")
	assert.NoError(t, err, "the other session stays")
	n, err := st.PruneSignIns(ctx, t0.Add(2*time.Hour), 10)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "a deleted session left nothing in the expiry index")
}

func testWebSessionPrune(t *testing.T, st hitl.SignInStore) {
	ctx := context.Background()
	for i := range 5 {
		require.NoError(t, st.PutSignIn(ctx, session(fmt.Sprintf("old%d", i), t0.Add(time.Duration(i)*time.Minute))))
	}
	require.NoError(t, st.PutSignIn(ctx, session("live", t0.Add(time.Hour))))
	now := t0.Add(4 * time.Minute) // old0..old4 expired (at or before now)
	n, err := st.PruneSignIns(ctx, now, 3)
	require.NoError(t, err)
	assert.Equal(t, 3, n, "up to the limit")
	n, err = st.PruneSignIns(ctx, now, 3)
	require.NoError(t, err)
	assert.Equal(t, 2, n, "the rest, less than the limit: done")
	n, err = st.PruneSignIns(ctx, now, 3)
	require.NoError(t, err)
	assert.Equal(t, 0, n)
	for i := range 5 {
		_, err := st.SignIn(ctx, fmt.Sprintf("old%d", i))
		assert.Equal(t, fault.ENOTFOUND, fault.Code(err))
	}
	_, err = st.SignIn(ctx, "live")
	assert.NoError(t, err, "a live session survives the prune")
}

func testWebSessionReplace(t *testing.T, st hitl.SignInStore) {
	ctx := context.Background()
	require.NoError(t, st.PutSignIn(ctx, session("s1", t0.Add(time.Minute))))
	require.NoError(t, st.PutSignIn(ctx, session("s1", t0.Add(time.Hour))))
	n, err := st.PruneSignIns(ctx, t0.Add(30*time.Minute), 10)
	require.NoError(t, err)
	assert.Equal(t, 0, n, "the old expiry went with the old record")
	ws, err := st.SignIn(ctx, "s1")
	require.NoError(t, err)
	assert.True(t, ws.ExpiresAt.Equal(t0.Add(time.Hour)))
}
