package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hitlbot/hitl/fault"
)

// Standard Webhooks (https://www.standardwebhooks.com): the headers, the
// secret's format and the signature, so that receivers verify with a
// library they already have.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
	secretPrefix    = "whsec_"
	// Tolerance is how far a timestamp may be from the receiver's clock
	// (the libraries' default).
	Tolerance = 5 * time.Minute
)

// Secret is an endpoint's signing key: the bytes of a "whsec_" secret.
type Secret []byte

// ParseSecrets reads the secrets of a secret file: one or more "whsec_"
// + base64 secrets separated by white space (two during a rotation:
// every delivery is signed with each). It never puts a secret in its
// error.
func ParseSecrets(text string) ([]Secret, error) {
	var out []Secret
	for i, f := range strings.Fields(text) {
		raw, ok := strings.CutPrefix(f, secretPrefix)
		if !ok {
			return nil, fault.Errorf(fault.EINVALID, "secret %d does not start with %q", i+1, secretPrefix)
		}
		key, err := base64.StdEncoding.DecodeString(raw)
		if err != nil || len(key) < 24 || len(key) > 64 {
			return nil, fault.Errorf(fault.EINVALID, "secret %d is not %s and the base64 of 24 to 64 bytes", i+1, secretPrefix)
		}
		out = append(out, key)
	}
	if len(out) == 0 {
		return nil, fault.Errorf(fault.EINVALID, "no secret: want %s and the base64 of 24 to 64 random bytes", secretPrefix)
	}
	if len(out) > 2 {
		return nil, fault.Errorf(fault.EINVALID, "%d secrets: at most two (the new and the old, during a rotation)", len(out))
	}
	return out, nil
}

// String hides the secret (a Secret printed or logged by mistake).
func (Secret) String() string { return "whsec_…" }

// sign is the v1 signature of id.timestamp.body under key.
func sign(key Secret, id string, ts int64, body []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id))
	mac.Write([]byte{'.'})
	mac.Write([]byte(strconv.FormatInt(ts, 10)))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// Sign sets the Standard Webhooks headers of a delivery of id with body
// at at: one signature per secret, space separated.
func Sign(h http.Header, secrets []Secret, id string, at time.Time, body []byte) {
	ts := at.Unix()
	sigs := make([]string, len(secrets))
	for i, s := range secrets {
		sigs[i] = sign(s, id, ts, body)
	}
	h.Set(HeaderID, id)
	h.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
	h.Set(HeaderSignature, strings.Join(sigs, " "))
}

// Verify checks a delivery as a receiver does: a timestamp within
// Tolerance of now and a v1 signature under secret. EUNAUTHORIZED when
// it does not verify.
func Verify(secret Secret, h http.Header, body []byte, now time.Time) error {
	id, tsText, sigs := h.Get(HeaderID), h.Get(HeaderTimestamp), h.Get(HeaderSignature)
	if id == "" || tsText == "" || sigs == "" {
		return fault.Errorf(fault.EUNAUTHORIZED, "missing webhook headers")
	}
	ts, err := strconv.ParseInt(tsText, 10, 64)
	if err != nil {
		return fault.Errorf(fault.EUNAUTHORIZED, "bad webhook-timestamp")
	}
	if d := now.Sub(time.Unix(ts, 0)); d > Tolerance || d < -Tolerance {
		return fault.Errorf(fault.EUNAUTHORIZED, "webhook-timestamp is %s away from now", d.Truncate(time.Second))
	}
	want := sign(secret, id, ts, body)
	for _, s := range strings.Fields(sigs) {
		if hmac.Equal([]byte(s), []byte(want)) {
			return nil
		}
	}
	return fault.Errorf(fault.EUNAUTHORIZED, "no webhook signature matches")
}
