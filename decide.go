package hitl

import (
	"slices"
	"strings"
	"time"
)

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
	// Learnable says a person may answer "approve and always allow": the
	// configured policy asks with no approvers and a quorum of one, and
	// the operation is one exact thing (for a command line, one simple
	// command with nothing computed when it runs and no redirection).
	Learnable bool `json:"learnable,omitempty"`
	// learn is what a learned rule would hold.
	learn *LearnedRuleKey
}

// DecisionPart is one part of a command line and how it decided.
type DecisionPart struct {
	// Kind is command, write (a file a redirection or tee writes), read
	// (a file a redirection reads) or opaque (what hands a string to a
	// shell or interpreter, or does not parse).
	Kind   string `json:"kind"`
	Text   string `json:"text"`
	Effect Effect `json:"decision"`
	Rule   string `json:"rule"`
	// Reason says why, in words a person reads.
	Reason string `json:"reason,omitempty"`
}

// PartsTellMore reports whether showing parts tells a person more than
// the operation's resource does: a line of several parts, or one the
// policy could not see through.
func PartsTellMore(parts []DecisionPart) bool {
	return len(parts) > 1 || (len(parts) == 1 && parts[0].Kind != PartCommand)
}

// Verb is how a part's text is introduced to a person: "writes " for a
// file written, "reads " for a file read, nothing for a command.
func (p DecisionPart) Verb() string {
	switch p.Kind {
	case PartWrite:
		return "writes "
	case PartRead:
		return "reads "
	}
	return ""
}

// Part kinds.
const (
	PartCommand = "command"
	PartWrite   = "write"
	PartRead    = "read"
	PartOpaque  = "opaque"
)

// Decider applies the policy: configured rules first (the first match
// wins), then, only where they ask with no approvers and a quorum of one,
// a learned rule for exactly the operation, then the default policy (docs/policies.md). A
// shell operation is decided part by part (see CommandLine): allowed only
// when every part is allowed, denied when any part is denied, asked
// otherwise.
type Decider struct {
	Rules []PolicyRule
	// Parse parses shell command lines; nil: every shell operation asks.
	Parse CommandParser
	// Learned finds the learned rule for a key (nil when none); nil: no
	// learned rules.
	Learned func(LearnedRuleKey) (*LearnedRule, error)
	Now     time.Time
}

// Decide decides op. Its error is the learned-rule lookup's.
func (d Decider) Decide(op Operation) (Decision, error) {
	if op.Type != OpShell {
		dec, err := d.single(op)
		if err != nil {
			return Decision{}, err
		}
		if dec.teachable() {
			dec.Learnable = true
			dec.learn = &LearnedRuleKey{Agent: op.Agent, OpType: op.Type, Resource: op.Resource}
		}
		return finish(dec), nil
	}
	parts, single, err := d.commandParts(op, 0)
	if err != nil {
		return Decision{}, err
	}
	dec := combine(parts)
	if single != nil && dec.teachable() {
		dec.Learnable = true
		dec.learn = &LearnedRuleKey{Agent: op.Agent, OpType: OpShell, Resource: single.Text()}
	}
	return finish(dec), nil
}

// teachable reports whether a person's teaching may change d: only an ask
// that names no approvers and needs one person, never a deny, approvers
// or a quorum. The one place this rule is written.
func (d Decision) teachable() bool {
	return d.Effect == EffectAsk && len(d.Approvers) == 0 && d.Quorum <= 1
}

func finish(d Decision) Decision {
	if d.Effect == EffectAsk && d.Quorum < 1 {
		d.Quorum = 1
	}
	if d.Effect != EffectAsk {
		d.Approvers, d.Quorum = nil, 0
	}
	return d
}

// partDecision is one part decided, with the rule's approvers.
type partDecision struct {
	DecisionPart
	approvers []string
	quorum    int
}

// single decides one operation that is not a command line (or one part
// of one): configured rules, learned rules, the default.
func (d Decider) single(op Operation) (Decision, error) {
	for _, r := range d.Rules {
		if r.Matches(op) {
			dec := Decision{Effect: r.Effect, Rule: r.Name, Approvers: r.Approvers, Quorum: r.Quorum}
			return d.learned(op, dec)
		}
	}
	dec := Decision{Effect: EffectAsk, Rule: "default"}
	if e, ok := DefaultPolicy()[op.Type]; ok {
		dec.Effect = e
	}
	if op.Prompted && dec.Effect == EffectAllow {
		dec = Decision{Effect: EffectAsk, Rule: "default (the agent was about to ask its person: no rule allows this)"}
	}
	return d.learned(op, dec)
}

// learned turns an approver-less, quorum-1 ask into allow when a person
// taught exactly op, and the rule has not expired.
func (d Decider) learned(op Operation, dec Decision) (Decision, error) {
	if !dec.teachable() || d.Learned == nil {
		return dec, nil
	}
	r, err := d.Learned(LearnedRuleKey{Agent: op.Agent, OpType: op.Type, Resource: op.Resource})
	if err != nil || r == nil || r.Expired(d.Now) {
		return dec, err
	}
	return Decision{Effect: EffectAllow, Rule: r.Name()}, nil
}

// commandParts decides each part of a command line. single is the line's
// one simple command when that is all it is (nothing computed when it
// runs, no redirection): the only kind of line a person may teach.
func (d Decider) commandParts(op Operation, depth int) (parts []partDecision, single *ShellCommand, err error) {
	opaque := func(text, reason string) {
		parts = append(parts, partDecision{DecisionPart: DecisionPart{Kind: PartOpaque, Text: text, Effect: EffectAsk, Rule: "default", Reason: reason}})
	}
	if d.Parse == nil {
		opaque(op.Resource, "no shell parser: every command asks")
		return parts, nil, nil
	}
	if strings.TrimSpace(op.Resource) == "" {
		opaque("", "no command given")
		return parts, nil, nil
	}
	line, perr := d.Parse(op.Resource)
	if perr != nil {
		// A deny rule that matches the raw line still denies.
		p, err := d.part(op, PartCommand, op.Resource)
		if err != nil {
			return nil, nil, err
		}
		if p.Effect == EffectDeny {
			parts = append(parts, p)
		}
		opaque(op.Resource, "does not parse as a shell command line, so its parts cannot be checked")
		return parts, nil, nil
	}
	if len(line.Commands) == 0 && len(line.Writes) == 0 && len(line.Reads) == 0 {
		opaque(op.Resource, "runs no command")
	}
	for _, what := range line.Opaque {
		opaque(op.Resource, "has "+what+", which the policy cannot see through")
	}
	for _, c := range line.Commands {
		text := c.Text()
		p, err := d.part(op, PartCommand, text)
		if err != nil {
			return nil, nil, err
		}
		if why := opaqueCommand(c); why != "" && p.Effect != EffectDeny {
			p.Kind, p.Effect, p.Rule, p.Reason, p.approvers, p.quorum = PartOpaque, EffectAsk, "default", why, nil, 0
			// The script of sh -c '…' is looked into as well: a part
			// of it that is denied denies the line (it still asks).
			if script, ok := shellScript(c); ok && depth < 3 {
				inner := op
				inner.Resource = script
				nested, _, err := d.commandParts(inner, depth+1)
				if err != nil {
					return nil, nil, err
				}
				for _, n := range nested {
					if n.Effect == EffectDeny {
						parts = append(parts, n)
					}
				}
			}
		}
		tee := teeFiles(c)
		if tee != nil && p.Effect == EffectAsk && p.Rule == "default" && !c.Dynamic() && len(c.Assigns) == 0 {
			p.Effect, p.Reason = EffectAllow, "tee only writes its files, each decided as a file write"
		}
		parts = append(parts, p)
		for _, w := range tee {
			if err := d.file(op, OpFileWrite, w, &parts); err != nil {
				return nil, nil, err
			}
		}
	}
	for _, w := range line.Writes {
		if err := d.file(op, OpFileWrite, w, &parts); err != nil {
			return nil, nil, err
		}
	}
	for _, w := range line.Reads {
		if err := d.file(op, OpFileRead, w, &parts); err != nil {
			return nil, nil, err
		}
	}
	if len(line.Commands) == 1 && len(line.Writes) == 0 && len(line.Reads) == 0 && len(line.Opaque) == 0 &&
		!line.Commands[0].Dynamic() && len(parts) == 1 && parts[0].Kind == PartCommand {
		c := line.Commands[0]
		single = &c
	}
	return parts, single, nil
}

// file decides a file a command line writes or reads, as the file_write
// or file_read operation it is. The terminal's own files are no files.
func (d Decider) file(op Operation, t OpType, w ShellWord, parts *[]partDecision) error {
	if w.Literal && slices.Contains([]string{"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty"}, w.Value) {
		return nil
	}
	kind := PartWrite
	if t == OpFileRead {
		kind = PartRead
	}
	fop := Operation{Type: t, Risk: op.Risk, Resource: w.Value, Agent: op.Agent, Description: op.Description, Prompted: op.Prompted}
	dec, err := d.single(fop)
	if err != nil {
		return err
	}
	p := partDecision{DecisionPart: DecisionPart{Kind: kind, Text: w.Text, Effect: dec.Effect, Rule: dec.Rule}, approvers: dec.Approvers, quorum: dec.Quorum}
	if !w.Literal && p.Effect == EffectAllow {
		p.Effect, p.Rule, p.Reason, p.approvers, p.quorum = EffectAsk, "default", "the path is computed when the command runs", nil, 0
	}
	p.Reason = orReason(p.Reason, dec)
	*parts = append(*parts, p)
	return nil
}

// part decides one simple command of a line.
func (d Decider) part(op Operation, kind, text string) (partDecision, error) {
	pop := op
	pop.Resource = text
	dec, err := d.single(pop)
	if err != nil {
		return partDecision{}, err
	}
	return partDecision{DecisionPart: DecisionPart{Kind: kind, Text: text, Effect: dec.Effect, Rule: dec.Rule, Reason: orReason("", dec)},
		approvers: dec.Approvers, quorum: dec.Quorum}, nil
}

func orReason(reason string, dec Decision) string {
	if reason != "" {
		return reason
	}
	switch {
	case strings.HasPrefix(dec.Rule, "learned "):
		return "a person taught it"
	case strings.HasPrefix(dec.Rule, "default"):
		return "no rule matches: " + dec.Rule
	}
	return "rule " + dec.Rule
}

// combine decides a line from its parts: deny when any part is denied (the
// first), allow when every part is allowed, ask otherwise, with the
// strictest asking part's approvers and quorum (the largest quorum, then
// the first that names approvers).
func combine(parts []partDecision) Decision {
	var ask *partDecision
	var allowRules []string
	for i := range parts {
		p := &parts[i]
		switch p.Effect {
		case EffectDeny:
			return Decision{Effect: EffectDeny, Rule: p.Rule, Parts: publicParts(parts)}
		case EffectAllow:
			if !slices.Contains(allowRules, p.Rule) {
				allowRules = append(allowRules, p.Rule)
			}
		default:
			if ask == nil || p.quorum > ask.quorum || (p.quorum == ask.quorum && len(ask.approvers) == 0 && len(p.approvers) > 0) {
				ask = p
			}
		}
	}
	if ask != nil {
		return Decision{Effect: EffectAsk, Rule: ask.Rule, Approvers: ask.approvers, Quorum: ask.quorum, Parts: publicParts(parts)}
	}
	return Decision{Effect: EffectAllow, Rule: strings.Join(allowRules, ", "), Parts: publicParts(parts)}
}

func publicParts(parts []partDecision) []DecisionPart {
	out := make([]DecisionPart, len(parts))
	for i, p := range parts {
		out[i] = p.DecisionPart
	}
	return out
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
