package webhook

import (
	"net/http"
	"testing"
	"time"

	"github.com/hitlbot/hitl/fault"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSignMatchesTheStandard signs the Standard Webhooks specification's
// example (its libraries' test vector).
func TestSignMatchesTheStandard(t *testing.T) {
	secrets, err := ParseSecrets("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n")
	require.NoError(t, err)
	h := http.Header{}
	Sign(h, secrets, "msg_p5jXN8AQM9LWM0D4loKWxJek", time.Unix(1614265330, 0), []byte(`{"test": 2432232314}`))
	assert.Equal(t, "msg_p5jXN8AQM9LWM0D4loKWxJek", h.Get(HeaderID))
	assert.Equal(t, "1614265330", h.Get(HeaderTimestamp))
	assert.Equal(t, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", h.Get(HeaderSignature))
}

func TestVerify(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	secrets, err := ParseSecrets("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw whsec_dGhlIG9sZCBzZWNyZXQgZHVyaW5nIGEgcm90YXRpb24=")
	require.NoError(t, err)
	require.Len(t, secrets, 2)
	body := []byte(`{"type":"question.answered"}`)
	signed := func(at time.Time) http.Header {
		h := http.Header{}
		Sign(h, secrets, "msg_1", at, body)
		return h
	}
	rows := []struct {
		name   string
		secret Secret
		h      http.Header
		body   []byte
		ok     bool
	}{
		{"the new secret verifies", secrets[0], signed(now), body, true},
		{"the old secret verifies during the rotation", secrets[1], signed(now), body, true},
		{"within the tolerance", secrets[0], signed(now.Add(-Tolerance)), body, true},
		{"a tampered body fails", secrets[0], signed(now), []byte(`{"type":"question.answered "}`), false},
		{"an old timestamp fails", secrets[0], signed(now.Add(-Tolerance - time.Second)), body, false},
		{"a timestamp from the future fails", secrets[0], signed(now.Add(Tolerance + time.Second)), body, false},
		{"another secret fails", Secret("another secret, 24 bytes+"), signed(now), body, false},
		{"no headers fail", secrets[0], http.Header{}, body, false},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			err := Verify(r.secret, r.h, r.body, now)
			if r.ok {
				assert.NoError(t, err)
			} else {
				assert.Equal(t, fault.EUNAUTHORIZED, fault.Code(err))
			}
		})
	}
	t.Run("a retimed signature fails", func(t *testing.T) {
		h := signed(now)
		h.Set(HeaderTimestamp, "1")
		assert.Error(t, Verify(secrets[0], h, body, time.Unix(1, 0)))
	})
}

func TestParseSecrets(t *testing.T) {
	for _, r := range []struct{ name, text string }{
		{"empty", "  \n"},
		{"no prefix", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"},
		{"not base64", "whsec_not*base64"},
		{"too short", "whsec_c2hvcnQ="},
		{"three secrets", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"},
	} {
		t.Run(r.name+" is refused without the secret in the error", func(t *testing.T) {
			_, err := ParseSecrets(r.text)
			require.Error(t, err)
			assert.Equal(t, fault.EINVALID, fault.Code(err))
			assert.NotContains(t, err.Error(), "MfKQ9r8")
			assert.NotContains(t, err.Error(), "c2hvcnQ")
		})
	}
	s, err := ParseSecrets("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	require.NoError(t, err)
	assert.Equal(t, "whsec_…", s[0].String())
}
