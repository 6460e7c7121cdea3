package hitl

import (
	"crypto/rand"
	"strconv"
	"time"
)

// Clock tells the time. Tests inject a fake one.
type Clock interface {
	Now() time.Time
}

// SystemClock is the wall clock, in UTC.
type SystemClock struct{}

// Now returns the current UTC time.
func (SystemClock) Now() time.Time { return time.Now().UTC() }

const idAlphabet = "0123456789abcdefghjkmnpqrstvwxyz" // Crockford base32, lower case

// NewID returns a random id with the given prefix: "q_" then 16 base32
// characters (80 bits), short enough to type.
func NewID(prefix string) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	out := make([]byte, len(prefix)+16)
	copy(out, prefix)
	for i := range 16 {
		out[len(prefix)+i] = idAlphabet[b[i]&31]
	}
	return string(out)
}

func itoa(n int) string { return strconv.Itoa(n) }
