package hitl

import "strings"

// Decision is what the policy decides for an operation.
type Decision struct {
	Effect    Effect   `json:"decision"`
	Rule      string   `json:"rule"` // the deciding rule's name, or "default"
	Approvers []string `json:"approvers,omitempty"`
	Quorum    int      `json:"quorum,omitempty"`
	// Parts are how a shell command line decided, part by part: each
	// simple command, each file a redirection writes or reads, and what
	// the policy cannot see through.
	Parts []DecisionPart `json:"parts,omitempty"`
	// Risks are what the operation does that a person should weigh,
	// riskiest first, from what it does, not from the rule (Decider.Risks).
	Risks []RiskLabel `json:"risks,omitempty"`
	// Learnable says a person may answer "approve and always allow": the
	// configured policy asks with no approvers and a quorum of one, and
	// the operation is one exact thing (for a command line, one simple
	// fully understood command with safe arguments, no redirection, that
	// no friction rule matches in any spelling: see commandParts).
	Learnable bool `json:"learnable,omitempty"`
	// Teaches is what a learned rule would hold (Learnable); never on
	// the wire.
	Teaches *LearnedRuleKey `json:"-"`
	// Grant is what a shell line may do when it runs (grant.go).
	Grant *CommandGrant `json:"grant,omitempty"`
}

// Teachable reports whether a person's teaching may change d: only an ask
// that names no approvers and needs one person, never a deny, approvers
// or a quorum. The one place this rule is written.
func (d Decision) Teachable() bool {
	return d.Effect == EffectAsk && len(d.Approvers) == 0 && d.Quorum <= 1
}

// Explain says in one line how a command line's parts decided, for an
// agent's hook reason or a terminal: "`git status` allow (rule safe-git);
// `rm -rf ~` ask (no rule matches: default)". Empty for an operation that
// is not a command line of several parts.
func (d Decision) Explain() string {
	if !PartsTellMore(d.Parts) {
		return ""
	}
	var b strings.Builder
	for i, p := range d.Parts {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.Verb() + "`" + p.Text + "` " + string(p.Effect) + " (" + p.Reason + ")")
	}
	return b.String()
}
