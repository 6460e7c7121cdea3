package hitl

// Limit names a per-principal rate limit beside question creation's
// (Limiter): each is a Limiter charged with the principal and no run.
type Limit string

const (
	// LimitControl bounds loop:control REQUESTs.
	LimitControl Limit = "control"
	// LimitRuns bounds loop:current reports (STATE, ABORT, DONE,
	// checkpoints) and the start of new runs.
	LimitRuns Limit = "runs"
	// LimitPolicy bounds policy calls: approvals, reading and setting the
	// policy, revoking learned rules.
	LimitPolicy Limit = "policy"
)
