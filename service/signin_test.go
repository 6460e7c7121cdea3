package service_test

import (
	"context"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The rule for signing in to the web inbox, one row per kind of principal.
func TestMaySignIn(t *testing.T) {
	rules := access.Access{Answerers: []string{"U0ANSWER"}}
	for _, tc := range []struct {
		name string
		p    auth.Principal
		ok   bool
	}{
		{"an ask-only token (an agent) is refused", auth.TokenPrincipal("ci", []auth.Scope{auth.ScopeAsk}, ""), false},
		{"a token without scopes (ask only) is refused", auth.TokenPrincipal("bare", nil, ""), false},
		{"an answer token signs in", auth.TokenPrincipal("alice", []auth.Scope{auth.ScopeAnswer}, ""), true},
		{"a control token signs in", auth.TokenPrincipal("ops", []auth.Scope{auth.ScopeControl}, ""), true},
		{"an admin token signs in", auth.TokenPrincipal("root", []auth.Scope{auth.ScopeAdmin}, ""), true},
		{"an ask+answer token signs in", auth.TokenPrincipal("both", []auth.Scope{auth.ScopeAsk, auth.ScopeAnswer}, ""), true},
		{"the local person of a tokenless server signs in", auth.LocalPrincipal(""), true},
		{"a Slack answerer signs in", rules.SlackPrincipal("U0ANSWER", nil), true},
		{"a Slack user who is not an answerer is refused", rules.SlackPrincipal("U0STRANGER", nil), false},
		{"the Slack bot's observer is refused", auth.ObserverPrincipal("bot"), false},
		{"nobody is refused", auth.Principal{ID: "anonymous"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := rules.MaySignIn(tc.p)
			if tc.ok {
				assert.NoError(t, err)
			} else {
				assert.Equal(t, fault.EFORBIDDEN, fault.Code(err))
			}
		})
	}
}

func newSessionService(t *testing.T) (*service.Service, *clocktest.Clock, hitl.Store) {
	t.Helper()
	st := memstore.New()
	clock := clocktest.New(time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC))
	return service.NewService(st, service.ServiceConfig{Notifier: notify.New(), Clock: clock}), clock, st
}

func TestSignIns(t *testing.T) {
	ctx := context.Background()
	person := auth.TokenPrincipal("alice", []auth.Scope{auth.ScopeAnswer}, "")
	t.Run("a session holds until it expires, then is deleted", func(t *testing.T) {
		svc, clock, st := newSessionService(t)
		secret, ws, err := svc.SignIns.SignIn(ctx, person, time.Hour)
		require.NoError(t, err)
		assert.NotEqual(t, secret, ws.ID, "the store holds the secret's hash, not the secret")
		got, err := svc.SignIns.SignedIn(ctx, secret)
		require.NoError(t, err)
		assert.Equal(t, "api:alice", got.Principal.ID)
		assert.NotEmpty(t, got.CSRF)
		clock.Add(time.Hour)
		_, err = svc.SignIns.SignedIn(ctx, secret)
		assert.Equal(t, fault.EUNAUTHORIZED, fault.Code(err))
		_, err = st.SignIn(ctx, ws.ID)
		assert.Equal(t, fault.ENOTFOUND, fault.Code(err), "the expired record is gone")
	})
	t.Run("sign out ends the session at once", func(t *testing.T) {
		svc, _, _ := newSessionService(t)
		secret, _, err := svc.SignIns.SignIn(ctx, person, time.Hour)
		require.NoError(t, err)
		require.NoError(t, svc.SignIns.SignOut(ctx, secret))
		_, err = svc.SignIns.SignedIn(ctx, secret)
		assert.Equal(t, fault.EUNAUTHORIZED, fault.Code(err))
		assert.NoError(t, svc.SignIns.SignOut(ctx, secret), "signing out twice is no error")
	})
	t.Run("an ask-only token is refused and the refusal audited", func(t *testing.T) {
		svc, _, st := newSessionService(t)
		_, _, err := svc.SignIns.SignIn(ctx, auth.TokenPrincipal("ci", nil, ""), time.Hour)
		assert.Equal(t, fault.EFORBIDDEN, fault.Code(err))
		evs, err := st.Events(ctx, 0, 10)
		require.NoError(t, err)
		require.Len(t, evs, 1)
		assert.Equal(t, hitl.EventRefused, evs[0].Type)
		assert.Equal(t, auth.ActionSignIn, evs[0].Action)
	})
	t.Run("an unknown secret is unauthorized", func(t *testing.T) {
		svc, _, _ := newSessionService(t)
		for _, s := range []string{"", "nope"} {
			_, err := svc.SignIns.SignedIn(ctx, s)
			assert.Equal(t, fault.EUNAUTHORIZED, fault.Code(err))
		}
	})
	t.Run("a sign-in link signs in once", func(t *testing.T) {
		svc, _, _ := newSessionService(t)
		link, err := svc.SignIns.NewSignInLink(ctx, person)
		require.NoError(t, err)
		_, err = svc.SignIns.SignedIn(ctx, link)
		assert.Equal(t, fault.EUNAUTHORIZED, fault.Code(err), "a link is not a session")
		secret, ws, err := svc.SignIns.RedeemSignInLink(ctx, link, time.Hour)
		require.NoError(t, err)
		assert.Equal(t, "api:alice", ws.Principal.ID)
		_, err = svc.SignIns.SignedIn(ctx, secret)
		assert.NoError(t, err)
		_, _, err = svc.SignIns.RedeemSignInLink(ctx, link, time.Hour)
		assert.Equal(t, fault.EUNAUTHORIZED, fault.Code(err), "a second use is refused")
	})
	t.Run("a sign-in link expires after ten minutes", func(t *testing.T) {
		svc, clock, _ := newSessionService(t)
		link, err := svc.SignIns.NewSignInLink(ctx, person)
		require.NoError(t, err)
		clock.Add(service.SignInLinkTTL)
		_, _, err = svc.SignIns.RedeemSignInLink(ctx, link, time.Hour)
		assert.Equal(t, fault.EUNAUTHORIZED, fault.Code(err))
	})
	t.Run("a session is not a sign-in link", func(t *testing.T) {
		svc, _, _ := newSessionService(t)
		secret, _, err := svc.SignIns.SignIn(ctx, person, time.Hour)
		require.NoError(t, err)
		_, _, err = svc.SignIns.RedeemSignInLink(ctx, secret, time.Hour)
		assert.Equal(t, fault.EUNAUTHORIZED, fault.Code(err))
	})
	t.Run("signing in prunes expired sessions", func(t *testing.T) {
		svc, clock, st := newSessionService(t)
		_, old, err := svc.SignIns.SignIn(ctx, person, time.Minute)
		require.NoError(t, err)
		clock.Add(time.Minute)
		_, _, err = svc.SignIns.SignIn(ctx, person, time.Hour)
		require.NoError(t, err)
		_, err = st.SignIn(ctx, old.ID)
		assert.Equal(t, fault.ENOTFOUND, fault.Code(err))
	})
}

func TestSignInLinkLeavesSessionsAlone(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := newSessionService(t)
	secret, _, err := svc.SignIns.SignIn(ctx, auth.TokenPrincipal("alice", []auth.Scope{auth.ScopeAnswer}, ""), time.Hour)
	require.NoError(t, err)
	_, _, err = svc.SignIns.RedeemSignInLink(ctx, secret, time.Hour)
	assert.Equal(t, fault.EUNAUTHORIZED, fault.Code(err))
	_, err = svc.SignIns.SignedIn(ctx, secret)
	assert.NoError(t, err, "a session used as a link still holds")
}
