package service

import (
	"time"

	"github.com/hitlbot/hitl"
)

// rateLimited is the error of a creation over the limit.
func rateLimited(p hitl.Principal, run string, d time.Duration) *hitl.Error {
	e := hitl.Errorf(hitl.ERATELIMITED, "%s asks too fast for run %s: retry in %s", p.ID, run, d.Round(time.Millisecond))
	e.RetryAfter = d
	return e
}
