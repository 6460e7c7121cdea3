package hitl

import (
	"time"
)

// rateLimited is the error of a creation over the limit.
func rateLimited(p Principal, run string, d time.Duration) *Error {
	e := Errorf(ERATELIMITED, "%s asks too fast for run %s: retry in %s", p.ID, run, d.Round(time.Millisecond))
	e.RetryAfter = d
	return e
}
