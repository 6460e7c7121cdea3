// Package uid makes hitl's ids: a prefix ("q_", "msg_", "r_" …) then 16
// characters of Crockford base32, time first, so ids made one after the
// other sort together.
package uid

import (
	"crypto/rand"
	"time"
)

const idAlphabet = "0123456789abcdefghjkmnpqrstvwxyz" // Crockford base32, lower case

// New returns an id with the given prefix: "q_" then 16 base32
// characters (short enough to type), the first 8 the time in units of 4 ms
// (until the year 2109), the other 8 random (40 bits). Ids made one after
// the other sort together, so the store writes a burst of new records into
// the same pages instead of pages all over its file.
func New(prefix string) string {
	return at(prefix, time.Now())
}

// at is the id New makes at now.
func at(prefix string, now time.Time) string {
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
