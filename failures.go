package hitl

// CreationFailed reports whether a creation that returned err counts as a
// creation error: the agent's input was bad or the service failed.
// Refusals (rules, rate limits, the threshold) and idempotent retries
// that conflict are the rules working, not errors.
func CreationFailed(err error) bool {
	switch ErrorCode(err) {
	case EINVALID, ETOOLARGE, EINTERNAL, EUNAVAILABLE:
		return true
	}
	return false
}
