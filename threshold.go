package hitl

import (
	"fmt"

	"github.com/hitlbot/hitl/fault"
)

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

// ThresholdInstruction is what an agent at level n is told about asking,
// in hitl's own words. The CLI prints it (hitl prompt) and the MCP tools
// carry it in their descriptions.
func ThresholdInstruction(n int) string {
	head := fmt.Sprintf("Interaction threshold: %d of 5. ", n)
	switch {
	case n <= 0:
		return head + "Do not ask a person anything: decide on your own judgement, note the assumptions you made, and keep going. " +
			"Approvals for risky operations are still requested through the approval tools."
	case n <= 2:
		return head + "Work autonomously. Ask a person only when you are blocked: the task cannot go on without a fact only they have, " +
			"or an action could lose data or money and is not clearly asked for. Batch what you need into one short question with options."
	case n == 3:
		return head + "Ask when a choice changes what the user gets and the task does not settle it: public interfaces, data migrations, " +
			"dependencies, anything hard to undo. Make routine decisions yourself. Offer options and say which you would pick."
	default:
		return head + "Collaborate closely. Before any decision with more than one reasonable answer, or any change outside the obvious scope, " +
			"ask a person and wait. Prefer short questions with options; while waiting, do nothing that the answer could change."
	}
}

// UnsetInstruction is what an agent is told when no threshold is set.
const UnsetInstruction = "No interaction threshold is set. Ask a person when their answer would change what you do and you cannot " +
	"find it out yourself; decide routine matters on your own. Prefer short questions with options."
