package hitl

import "time"

// Limiter throttles question creation (docs/configuration.md, rate
// limits), per principal and per run. Implementations must be
// safe for concurrent use.
type Limiter interface {
	// Allow takes one creation for principal in run and returns 0, or how
	// long to wait before trying again (nothing is taken then).
	Allow(principal, run string) (retryAfter time.Duration)
}
