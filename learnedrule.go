package hitl

import (
	"fmt"
	"time"
)

// LearnedRule is what a person taught with "approve and always allow": the
// same agent may do exactly this operation again without asking, until it
// expires. It is exactly what the person saw (an operation type and its
// resource, for a command its parsed form), never a pattern. It only ever
// turns the configured policy's approver-less, quorum-of-one ask into
// allow: it never touches a deny, a rule with approvers or a quorum.
type LearnedRule struct {
	ID       string `json:"id"`
	Agent    string `json:"agent"`
	OpType   OpType `json:"opType"`
	Resource string `json:"resource"`
	// CreatedBy is the person who taught it; QuestionID the approval they
	// answered.
	CreatedBy  string    `json:"createdBy"`
	QuestionID string    `json:"questionId,omitempty"`
	CreatedAt  time.Time `json:"createdAt"`
	ExpiresAt  time.Time `json:"expiresAt"`
}

// Name is how people see the rule in decisions and audit entries.
func (r *LearnedRule) Name() string {
	return fmt.Sprintf("learned %s: %s %s", r.ID, r.OpType, r.Resource)
}

// Expired reports whether r no longer holds at now.
func (r *LearnedRule) Expired(now time.Time) bool { return !now.Before(r.ExpiresAt) }

// Key returns r's key.
func (r *LearnedRule) Key() LearnedRuleKey {
	return LearnedRuleKey{Agent: r.Agent, OpType: r.OpType, Resource: r.Resource}
}

// LearnedRuleKey is what a learned rule is found by: an agent's exact
// operation. The store keeps at most one rule per key.
type LearnedRuleKey struct {
	Agent    string
	OpType   OpType
	Resource string
}

// DefaultLearnedTTL is how long a learned rule holds (policy.learned_ttl).
const DefaultLearnedTTL = 30 * 24 * time.Hour
