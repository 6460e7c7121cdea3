package service_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/shell"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// failingPolicyStore fails PolicyState reads while fail is set.
type failingPolicyStore struct {
	*memstore.Store
	fail atomic.Bool
}

func (s *failingPolicyStore) PolicyState(ctx context.Context) (*hitl.PolicyState, error) {
	if s.fail.Load() {
		return nil, errors.New("store unreachable")
	}
	return s.Store.PolicyState(ctx)
}

// Two services sharing a store and a notifier (replicas): a policy one
// sets is the other's at its next decision; a reload that fails keeps the
// rules it had and is tried again.
func TestPolicySetOnOneReplicaHoldsOnAll(t *testing.T) {
	st := &failingPolicyStore{Store: memstore.New()}
	n := notify.New()
	replica := func() *service.Service {
		svc := service.NewService(st, service.ServiceConfig{Notifier: n, Clock: clocktest.New(t0), ParseCommand: shell.Parse})
		require.NoError(t, svc.Policies.LoadPolicy(context.Background(), nil))
		return svc
	}
	a, b := replica(), replica()
	agent := auth.WithPrincipal(context.Background(), asker)
	op := hitl.Operation{Type: hitl.OpShell, Description: "check the tree", Resource: "git status"}
	d, err := b.Policies.Decide(agent, op)
	require.NoError(t, err)
	assert.Equal(t, hitl.EffectAsk, d.Effect, "the default policy asks")

	adminCtx := auth.WithPrincipal(context.Background(), auth.TokenPrincipal("root", []auth.Scope{auth.ScopeAdmin}, ""))
	_, err = a.Policies.SetPolicy(adminCtx, []hitl.Rule{{Name: "safe-git", OpType: hitl.OpShell, Resource: "git status", Effect: hitl.EffectAllow}})
	require.NoError(t, err)
	d, err = b.Policies.Decide(agent, op)
	require.NoError(t, err)
	assert.Equal(t, hitl.EffectAllow, d.Effect, "the rule set on replica a decides on replica b")

	st.fail.Store(true) // b cannot read what a stores next
	_, err = a.Policies.SetPolicy(adminCtx, []hitl.Rule{{Name: "no-git", OpType: hitl.OpShell, Resource: "git status", Effect: hitl.EffectDeny}})
	require.NoError(t, err)
	d, err = b.Policies.Decide(agent, op)
	require.NoError(t, err)
	assert.Equal(t, hitl.EffectAllow, d.Effect, "a reload that fails keeps the rules it had")
	st.fail.Store(false)
	d, err = b.Policies.Decide(agent, op)
	require.NoError(t, err)
	assert.Equal(t, hitl.EffectDeny, d.Effect, "and is tried again at the next decision")
}
