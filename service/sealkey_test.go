package service_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/seal"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSealKeyRule(t *testing.T) {
	for _, c := range []struct {
		name            string
		shared, keyFile bool
		code            string
	}{
		{name: "one process, no key file: a key made at start", shared: false, keyFile: false},
		{name: "one process, a key file", shared: false, keyFile: true},
		{name: "replicas sharing a database, a key file", shared: true, keyFile: true},
		{name: "replicas sharing a database, no key file: refused", shared: true, keyFile: false, code: fault.EINVALID},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := hitl.CheckSealKey(c.shared, c.keyFile)
			assert.Equal(t, c.code, fault.Code(err))
			if c.code != "" {
				assert.Contains(t, fault.Message(err), "seal_key_file (HITL_SEAL_KEY_FILE)", "the refusal names the setting")
			}
		})
	}
}

// Replicas (or a restart) with the same key file open what another
// sealed; another key does not, and asks again.
func TestSharedSealKeyOpensAcrossServices(t *testing.T) {
	st := memstore.New()
	clock := clocktest.New(t0)
	withKey := func(b byte) hitl.Sealer {
		c, err := seal.WithKey(bytes.Repeat([]byte{b}, seal.KeySize))
		require.NoError(t, err)
		return c
	}
	one := service.NewService(st, service.ServiceConfig{Notifier: notify.New(), Clock: clock, Sealer: withKey(1)})
	two := service.NewService(st, service.ServiceConfig{Notifier: notify.New(), Clock: clock, Sealer: withKey(1)})
	ctx := auth.WithPrincipal(context.Background(), asker)
	person := auth.WithPrincipal(context.Background(), answerer)
	q, _, err := one.Questions.Create(ctx, "run-1", hitl.NewQuestion{Question: "Token?", Sensitive: true})
	require.NoError(t, err)
	_, err = one.Questions.Answer(person, q.ID, hitl.Response{Value: "s3cret"})
	require.NoError(t, err)

	n, err := two.Questions.ReopenSealed(context.Background())
	require.NoError(t, err)
	assert.Zero(t, n, "the same key: nothing was lost")
	got, err := two.Questions.Receive(ctx, q.ID)
	require.NoError(t, err)
	assert.Equal(t, "s3cret", got.Response.Value, "sealed by one, opened by the other")

	q2, _, err := one.Questions.Create(ctx, "run-1", hitl.NewQuestion{Question: "Other?", Sensitive: true})
	require.NoError(t, err)
	_, err = one.Questions.Answer(person, q2.ID, hitl.Response{Value: "x"})
	require.NoError(t, err)
	other := service.NewService(st, service.ServiceConfig{Notifier: notify.New(), Clock: clock, Sealer: withKey(2)})
	n, err = other.Questions.ReopenSealed(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 1, n, "another key cannot open it: asked again")
}
