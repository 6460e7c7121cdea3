package hitl_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSealKeyRule(t *testing.T) {
	key := bytes.Repeat([]byte{7}, hitl.SealKeySize)
	for _, c := range []struct {
		name   string
		shared bool
		key    []byte
		code   string
		names  string // the setting the refusal names
	}{
		{name: "one process, no key file: a key made at start", shared: false, key: nil},
		{name: "one process, a key file", shared: false, key: key},
		{name: "replicas sharing a database, a key file", shared: true, key: key},
		{name: "replicas sharing a database, no key file: refused", shared: true, key: nil, code: hitl.EINVALID, names: "seal_key_file (HITL_SEAL_KEY_FILE)"},
		{name: "a key of the wrong size: refused", shared: true, key: key[:16], code: hitl.EINVALID, names: "seal_key_file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := hitl.CheckSealKey(c.shared, c.key)
			assert.Equal(t, c.code, hitl.ErrorCode(err))
			if c.names != "" {
				assert.Contains(t, hitl.ErrorMessage(err), c.names)
			}
		})
	}
}

func TestParseSealKey(t *testing.T) {
	raw := bytes.Repeat([]byte{0xab}, 32)
	hexKey := strings.Repeat("ab", 32)
	for _, c := range []struct {
		name string
		in   []byte
		ok   bool
	}{
		{"32 raw bytes", raw, true},
		{"64 hexadecimal characters", []byte(hexKey), true},
		{"hex with a trailing newline (openssl rand -hex 32 > file)", []byte(hexKey + "\n"), true},
		{"upper-case hex", []byte(strings.ToUpper(hexKey)), true},
		{"too short", raw[:31], false},
		{"63 hex characters", []byte(hexKey[:63]), false},
		{"64 characters that are not hex", []byte(strings.Repeat("zz", 32)), false},
		{"empty", nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			key, err := hitl.ParseSealKey(c.in)
			if !c.ok {
				assert.Equal(t, hitl.EINVALID, hitl.ErrorCode(err))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, raw, key)
		})
	}
}

// Replicas (or a restart) with the same key file open what another
// sealed; another key does not, and asks again.
func TestSharedSealKeyOpensAcrossServices(t *testing.T) {
	st := memstore.New()
	clock := clocktest.New(t0)
	key := bytes.Repeat([]byte{1}, 32)
	one := hitl.NewService(st, hitl.ServiceConfig{Notifier: notify.New(), Clock: clock, SealKey: key})
	two := hitl.NewService(st, hitl.ServiceConfig{Notifier: notify.New(), Clock: clock, SealKey: bytes.Clone(key)})
	ctx := hitl.WithPrincipal(context.Background(), asker)
	person := hitl.WithPrincipal(context.Background(), answerer)
	q, _, err := one.Create(ctx, "run-1", hitl.NewQuestion{Question: "Token?", Sensitive: true})
	require.NoError(t, err)
	_, err = one.Answer(person, q.ID, hitl.Response{Value: "s3cret"})
	require.NoError(t, err)

	n, err := two.ReopenSealed(context.Background())
	require.NoError(t, err)
	assert.Zero(t, n, "the same key: nothing was lost")
	got, err := two.Receive(ctx, q.ID)
	require.NoError(t, err)
	assert.Equal(t, "s3cret", got.Response.Value, "sealed by one, opened by the other")

	q2, _, err := one.Create(ctx, "run-1", hitl.NewQuestion{Question: "Other?", Sensitive: true})
	require.NoError(t, err)
	_, err = one.Answer(person, q2.ID, hitl.Response{Value: "x"})
	require.NoError(t, err)
	other := hitl.NewService(st, hitl.ServiceConfig{Notifier: notify.New(), Clock: clock, SealKey: bytes.Repeat([]byte{2}, 32)})
	n, err = other.ReopenSealed(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 1, n, "another key cannot open it: asked again")
}
