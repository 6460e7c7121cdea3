package hitl

import "time"

// Rule is one configured rule. Match fields are optional (empty
// matches all): OpType, Risk (one level or several), Resource (a glob: *
// matches any run of characters, ? one; for shell commands it is matched
// against each simple command of the line, and a pattern without * or ?
// is a prefix on a word boundary) and Agent (the token's name). Approvers
// (Slack users, user groups, token names) and Quorum (distinct people
// needed) apply when the effect is ask.
type Rule struct {
	Name      string   `json:"name"`
	OpType    OpType   `json:"opType,omitempty"`
	Risk      []Risk   `json:"risk,omitempty"`
	Resource  string   `json:"resource,omitempty"`
	Agent     string   `json:"agent,omitempty"`
	Effect    Effect   `json:"effect"`
	Approvers []string `json:"approvers,omitempty"`
	Quorum    int      `json:"quorum,omitempty"`
	// ReminderPolicy is the rule's reminders and escalation (effect ask):
	// each key it sets wins over the question type's.
	ReminderPolicy
}

// AddsFriction reports whether r adds friction: it denies, or it asks named
// approvers or more than one person.
func (r Rule) AddsFriction() bool {
	return r.Effect == EffectDeny || r.Effect == EffectAsk && (len(r.Approvers) > 0 || r.Quorum > 1)
}

// PolicyState is the configured policy as stored: the rules (from the
// file, or from the last PUT) and the hash of the file's rules they were
// taken from, so that a PUT beats the file until the file changes. Learned
// rules are records of their own (LearnedRule).
type PolicyState struct {
	Rules     []Rule     `json:"rules"`
	FileHash  string     `json:"fileHash"`
	UpdatedBy string     `json:"updatedBy,omitempty"`
	UpdatedAt *time.Time `json:"updatedAt,omitempty"`
}

// Policy is the configured policy: rules (first match wins), then the
// default. Learned rules are records of their own (LearnedRule).
type Policy struct {
	Rules []Rule `json:"rules"`
	// Default is the default policy (docs/policies.md), by operation type (read only).
	Default map[OpType]Effect `json:"default"`
}

// DefaultPolicy is the default policy (docs/policies.md): file deletions and shell commands
// ask; API calls, file reads and agent spawning are allowed; file writes
// and custom operation types ask (fail safe).
func DefaultPolicy() map[OpType]Effect {
	return map[OpType]Effect{OpFileDelete: EffectAsk, OpShell: EffectAsk, OpAPICall: EffectAllow,
		OpFileRead: EffectAllow, OpSpawnAgent: EffectAllow, OpFileWrite: EffectAsk}
}
