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

// NewID returns an id with the given prefix: "q_" then 16 base32
// characters (short enough to type), the first 8 the time in units of 4 ms
// (until the year 2109), the other 8 random (40 bits). Ids made one after
// the other sort together, so the store writes a burst of new records into
// the same pages instead of pages all over its file.
func NewID(prefix string) string {
	return newID(prefix, time.Now())
}

func newID(prefix string, now time.Time) string {
	const timeChars, randChars = 8, 8
	var b [randChars]byte
	_, _ = rand.Read(b[:])
	out := make([]byte, len(prefix)+timeChars+randChars)
	copy(out, prefix)
	t := uint64(now.UnixMilli()) / 4 // 40 bits: 139 years from 1970
	for i := timeChars - 1; i >= 0; i-- {
		out[len(prefix)+i] = idAlphabet[t&31]
		t >>= 5
	}
	for i, v := range b {
		out[len(prefix)+timeChars+i] = idAlphabet[v&31]
	}
	return string(out)
}

func itoa(n int) string { return strconv.Itoa(n) }
