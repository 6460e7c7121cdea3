package slackfake

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
)

// newUUID returns a random version 4 UUID, the form of Slack's envelope IDs.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// randomHex returns n random hex digits.
func randomHex(n int) string {
	b := make([]byte, (n+1)/2)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)[:n]
}

func lower(s string) string { return strings.ToLower(s) }

// compactJSON returns raw without insignificant whitespace (raw itself if it
// is not valid JSON).
func compactJSON(raw []byte) json.RawMessage {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return append(json.RawMessage(nil), raw...)
	}
	return buf.Bytes()
}
