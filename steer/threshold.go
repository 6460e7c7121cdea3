package steer

import "github.com/hitlbot/hitl/fault"

// Interaction threshold (docs/protocol.md#run-state-and-the-interaction-threshold): 0 to 5, how readily an agent should
// ask. Unset by default: hitl exists to ask, so nothing is refused until
// someone picks a level. At 0 a question (not an approval) is refused and
// the agent is told to proceed on its own judgement.
const (
	MinThreshold = 0
	MaxThreshold = 5
)

// ValidateThreshold checks a threshold named key (for the message).
func ValidateThreshold(key string, n int) error {
	if n < MinThreshold || n > MaxThreshold {
		return fault.Errorf(fault.EINVALID, "%s must be a whole number from 0 to 5, got %d", key, n)
	}
	return nil
}
