package hitl

import (
	"strings"

	"github.com/hitlbot/hitl/fault"
)

// A batch answers several approvals at once: each selected approval is
// answered as if it had been answered alone (service.Questions.Answer, one by one:
// who may answer, quorum and learned-rule rules per approval), with one
// result each. A batch only approves or denies, with one optional reason;
// it never edits, replies or teaches a rule.

// MaxBatch bounds the approvals one batch answers.
const MaxBatch = 100

// BatchResponse is the response a batch gives each selected approval:
// decision "approve", or "deny" with reason (optional). It is typed, so
// the root refuses it for a question that is not an approval.
func BatchResponse(decision, reason string) (Response, error) {
	switch decision {
	case Approve:
		return Response{Type: ApprovalResponse, Value: Approve}, nil
	case Deny:
		return Response{Type: ApprovalResponse, Value: Deny, Text: strings.TrimSpace(reason)}, nil
	}
	return Response{}, fault.Errorf(fault.EINVALID, "a batch approves or denies: decision %q is unknown", decision)
}

// BatchIDs checks the ids a batch selected: at least one, at most
// MaxBatch, each once (a repeat is dropped, in order).
func BatchIDs(ids []string) ([]string, error) {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if id = strings.TrimSpace(id); id != "" && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	switch {
	case len(out) == 0:
		return nil, fault.Errorf(fault.EINVALID, "select the approvals to answer first")
	case len(out) > MaxBatch:
		return nil, fault.Errorf(fault.EINVALID, "select at most %d approvals at once", MaxBatch)
	}
	return out, nil
}

// BatchResult is what a batch did to one selected approval: Question as
// it is after the answer (still pending when the approval needs more
// approvals), or Err, the refusal it would have had alone (not allowed,
// already answered by someone else, your approval is already counted …).
type BatchResult struct {
	QuestionID string
	Question   *Question
	Err        error
}
