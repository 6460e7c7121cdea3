package service

import (
	"time"

	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
)

// rateLimited is the error of a creation over the limit.
func rateLimited(p auth.Principal, run string, d time.Duration) *fault.Error {
	e := fault.Errorf(fault.ERATELIMITED, "%s asks too fast for run %s: retry in %s", p.ID, run, d.Round(time.Millisecond))
	e.RetryAfter = d
	return e
}
