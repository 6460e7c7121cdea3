// Package policy owns the approval decision: which operations an agent
// may do alone, which a person must approve (and how many, and who), and
// which are denied. Decider applies configured rules, then learned rules,
// then the default; a shell command line is decided part by part from its
// parse (package shell), allowed only when every part is fully understood
// and allowed (opaque.go, argtable.go), while rules that add friction
// match every spelling of their command (friction.go). It also says what
// an "always allow" may teach. It is pure: no store, no clock.
//
// It also holds the approval policy's vocabulary, so that it imports
// nothing of hitl's but the error type and sits below the root, which
// names these types in its records: the Operation an agent asks to do
// (with its FileDiffs) and its Effect (policy.go, filediff.go), the rules
// a person writes (Rule, Policy) and the LearnedRules an "always
// allow" teaches (learned.go), the DecisionParts a person sees
// (decisionpart.go), and a rule's reminders and escalation
// (reminderpolicy.go).
package policy
