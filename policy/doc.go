// Package policy owns the approval decision: which operations an agent
// may do alone, which a person must approve (and how many, and who), and
// which are denied. Decider applies configured rules, then learned rules,
// then the default; a shell command line is decided part by part from its
// parse (package shell), allowed only when every part is fully understood
// and allowed (opaque.go, argtable.go), while rules that add friction
// match every spelling of their command (friction.go). It also says what
// an "always allow" may teach. It is pure: no store, no clock.
//
// It speaks the root's vocabulary (package hitl): the Operation an agent
// asks to do (operation.go, with its FileDiffs in filediff.go), the Rules
// a person writes and the PolicyState they are stored as (rule.go), the
// LearnedRules an "always allow" teaches (learnedrule.go), the
// DecisionParts and RiskLabels a person sees (decisionpart.go,
// risklabel.go), the CommandGrant a decided line runs under
// (commandgrant.go) and a rule's reminders (reminderpolicy.go). This
// package holds the behaviour over them: checking an operation an agent
// sent (ValidateOperation) and the configured Policy (Policy.Validate),
// matching a rule (RuleMatches), deciding (Decider), labelling risks
// (Decider.Risks) and computing grants (Decider.GrantFor). It sits above
// the root, which imports nothing of it.
package policy
