package seal

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseKey(t *testing.T) {
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
			key, err := ParseKey(c.in)
			if !c.ok {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "openssl rand -hex 32", "the error says how to make one")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, raw, key)
		})
	}
}

func TestCipher(t *testing.T) {
	key := bytes.Repeat([]byte{3}, KeySize)
	a, err := WithKey(key)
	require.NoError(t, err)
	b, err := WithKey(bytes.Clone(key))
	require.NoError(t, err)
	assert.Equal(t, a.KeyID(), b.KeyID(), "one key, one name")
	assert.NotContains(t, a.KeyID(), "0303", "the name reveals nothing of the key")

	data, err := a.Seal([]byte("s3cret"), []byte("q_1"))
	require.NoError(t, err)
	assert.NotContains(t, string(data), "s3cret")
	plain, ok := b.Open(data, []byte("q_1"))
	require.True(t, ok, "the same key opens it")
	assert.Equal(t, "s3cret", string(plain))
	plain, ok = b.Open(data, []byte("q_1"))
	assert.True(t, ok && string(plain) == "s3cret", "it opens again (a retried transaction)")

	_, ok = a.Open(data, []byte("q_2"))
	assert.False(t, ok, "bound to its question: not opened as another's")
	_, ok = New().Open(data, []byte("q_1"))
	assert.False(t, ok, "another key cannot open it")
	_, ok = a.Open(data[:5], []byte("q_1"))
	assert.False(t, ok, "truncated data")
	tampered := bytes.Clone(data)
	tampered[len(tampered)-1] ^= 1
	_, ok = a.Open(tampered, []byte("q_1"))
	assert.False(t, ok, "tampered data")

	assert.NotEqual(t, New().KeyID(), New().KeyID(), "a key made at start has a name of its own")
	_, err = WithKey(key[:16])
	assert.Error(t, err, "a key of the wrong size")
}
