package hitl

import (
	"context"
	"time"
)

// PolicyStore keeps the approval policy's records: the configured rules
// (PolicyState) and the rules learned from "always allow" (LearnedRule).
type PolicyStore interface {
	// PolicyState returns the stored approval policy, nil when none is.
	PolicyState(ctx context.Context) (*PolicyState, error)

	// PutPolicyState stores the approval policy's configured rules, and
	// appends evs (the change's policy_decision event: its audit record)
	// in the same transaction: no change without its record.
	PutPolicyState(ctx context.Context, st *PolicyState, evs ...*Event) error

	// PutLearnedRule stores r in one transaction, replacing the rule with
	// the same key (agent, opType, resource) if there is one: that rule's
	// id is gone. Concurrent puts of different keys all survive. evs (the
	// rule_learned event) are appended in the same transaction.
	PutLearnedRule(ctx context.Context, r *LearnedRule, evs ...*Event) error

	// LearnedRule returns the rule stored under key, nil when none is
	// (expired ones too: the root decides what expired means). Its cost
	// does not grow with the number of rules.
	LearnedRule(ctx context.Context, key LearnedRuleKey) (*LearnedRule, error)

	// DeleteLearnedRule deletes rule id in one transaction and returns it,
	// or ENOTFOUND. A deleted rule never comes back. The events evOf
	// makes of the deleted rule (its rule_revoked event) are appended in
	// the same transaction.
	DeleteLearnedRule(ctx context.Context, id string, evOf ...func(gone *LearnedRule) *Event) (*LearnedRule, error)

	// LearnedRules returns a page of learned rules in id order. Its cost
	// grows with the page.
	LearnedRules(ctx context.Context, f LearnedRuleFilter) (LearnedRulePage, error)

	// PruneLearnedRules deletes up to limit rules whose ExpiresAt is at or
	// before now, and returns how many it deleted (less than limit when it
	// is done). Its cost grows with the number deleted.
	PruneLearnedRules(ctx context.Context, now time.Time, limit int) (int, error)
}

// LearnedRuleFilter selects a page of learned rules, in id order. Agent,
// when set, selects one agent's rules.
type LearnedRuleFilter struct {
	Agent  string
	Limit  int
	Cursor string
}

// LearnedRulePage is one page of learned rules.
type LearnedRulePage struct {
	Rules      []*LearnedRule `json:"rules"`
	NextCursor string         `json:"nextCursor,omitempty"`
}

// PageSize returns the page size f asks for, bounded.
func (f LearnedRuleFilter) PageSize() int {
	return QuestionFilter{Limit: f.Limit}.PageSize()
}
