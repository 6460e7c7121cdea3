package policy

import (
	"path"
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
	Grant *Grant `json:"grant,omitempty"`
}

// Decider applies the policy: configured rules first (the first match
// wins), then, only where they ask with no approvers and a quorum of one,
// a learned rule for exactly the operation, then the default policy (docs/policies.md). A
// shell operation is decided part by part (see CommandLine): allowed only
// when every part is allowed, denied when any part is denied, asked
// otherwise.
type Decider struct {
	Rules []Rule
	// Parse parses shell command lines; nil: every shell operation asks.
	Parse CommandParser
	// Learned finds the learned rule for a key (nil when none); nil: no
	// learned rules.
	Learned func(LearnedRuleKey) (*LearnedRule, error)
	Now     time.Time
}

// Decide decides op. Its error is the learned-rule lookup's.
func (d Decider) Decide(op Operation) (Decision, error) {
	if d.Parse != nil {
		d.Parse = parseOnce(d.Parse) // the decision, its grant and its risks read the same lines
	}
	dec, err := d.decide(op)
	if err != nil {
		return dec, err
	}
	dec.Risks = d.Risks(op, dec.Parts)
	return dec, nil
}

func (d Decider) decide(op Operation) (Decision, error) {
	if op.Type != OpShell {
		var dec Decision
		var err error
		teach := true
		if isFileOp(op.Type) && op.Resource != "" {
			fp, rs := place(op.Resource, true, op.Home, op.Cwd, directories(nil, op.Home, op.Cwd))
			op.Resource = fp.value
			var p partDecision
			p, err = d.path(op, op.Type, fp, rs, op.Resource, op.Recursive)
			dec = Decision{Effect: p.Effect, Rule: p.Rule, Approvers: p.approvers, Quorum: p.quorum}
			teach = !fp.homeUnknown && !fp.network && fp.unplaceable == ""
		} else {
			dec, err = d.single(op)
		}
		if err != nil {
			return Decision{}, err
		}
		if teach && dec.Teachable() {
			dec.Learnable = true
			dec.Teaches = &LearnedRuleKey{Agent: op.Agent, OpType: op.Type, Resource: op.Resource}
		}
		return finish(dec), nil
	}
	parts, single, err := d.commandParts(op, 0)
	if err != nil {
		return Decision{}, err
	}
	dec := combine(parts)
	dec.Grant = d.GrantFor(op)
	if single != "" && dec.Teachable() {
		dec.Learnable = true
		dec.Teaches = &LearnedRuleKey{Agent: op.Agent, OpType: OpShell, Resource: single}
	}
	return finish(dec), nil
}

// Teachable reports whether a person's teaching may change d: only an ask
// that names no approvers and needs one person, never a deny, approvers
// or a quorum. The one place this rule is written.
func (d Decision) Teachable() bool {
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
	// unplaced: it names a path the policy cannot place, so no learned
	// rule may allow it either.
	unplaced bool
}

// single decides one operation that is not a command line (or one part
// of one): configured rules, learned rules, the default.
func (d Decider) single(op Operation) (Decision, error) {
	return d.learned(op, d.configured(op))
}

// configured decides op by the configured rules and the default.
func (d Decider) configured(op Operation) Decision {
	for _, r := range d.Rules {
		if matchesFile(r, op, false) {
			return Decision{Effect: r.Effect, Rule: r.Name, Approvers: r.Approvers, Quorum: r.Quorum}
		}
	}
	dec := Decision{Effect: EffectAsk, Rule: "default"}
	if e, ok := DefaultPolicy()[op.Type]; ok {
		dec.Effect = e
	}
	if op.Prompted && dec.Effect == EffectAllow {
		dec = Decision{Effect: EffectAsk, Rule: "default (the agent was about to ask its person: no rule allows this)"}
	}
	return dec
}

// learned turns an approver-less, quorum-1 ask into allow when a person
// taught exactly op, and the rule has not expired.
func (d Decider) learned(op Operation, dec Decision) (Decision, error) {
	if !dec.Teachable() || d.Learned == nil {
		return dec, nil
	}
	r, err := d.Learned(LearnedRuleKey{Agent: op.Agent, OpType: op.Type, Resource: op.Resource})
	if err != nil || r == nil || r.Expired(d.Now) {
		return dec, err
	}
	return Decision{Effect: EffectAllow, Rule: r.Name()}, nil
}

func isFileOp(t OpType) bool {
	return t == OpFileRead || t == OpFileWrite || t == OpFileDelete
}

// commandParts decides each part of a command line. single is the line's
// one simple command when that is all it is and it is fully understood
// (no opaque node, literal words, no assignment, arguments the table
// knows safe, no redirection, no file its arguments write) and no
// friction rule matches it generously: the only kind of line a person
// may teach.
func (d Decider) commandParts(op Operation, depth int) (parts []partDecision, single string, err error) {
	opaque := func(text, reason string) {
		parts = append(parts, partDecision{DecisionPart: DecisionPart{Kind: PartOpaque, Text: text, Effect: EffectAsk, Rule: "default", Reason: reason}})
	}
	if d.Parse == nil {
		opaque(op.Resource, "no shell parser: every command asks")
		return parts, "", nil
	}
	if strings.TrimSpace(op.Resource) == "" {
		opaque("", "no command given")
		return parts, "", nil
	}
	line, perr := d.Parse(op.Resource)
	if perr != nil {
		// A deny or friction rule that matches the raw line, read
		// generously, still applies.
		p := partDecision{DecisionPart: DecisionPart{Kind: PartOpaque, Text: op.Resource, Effect: EffectAsk, Rule: "default",
			Reason: "not understood: it does not parse as a shell command line, so its parts cannot be checked"}}
		if err := d.textFriction(op, op.Resource, &p); err != nil {
			return nil, "", err
		}
		parts = append(parts, p)
		return parts, "", nil
	}
	if len(line.Commands) == 0 && len(line.Writes) == 0 && len(line.Reads) == 0 {
		opaque(op.Resource, "not understood: it runs no command")
	}
	for _, o := range line.Opaque {
		opaque(o.Text, "not understood: "+o.What)
	}
	ld := directories(line, op.Home, op.Cwd)
	var views []commandView
	for _, c := range line.Commands {
		v := understand(c)
		if why := gitRuns(c, op.GitConfig); why != "" && v.why == "" {
			v.why = why
		}
		views = append(views, v)
	}
	keys := make([]string, len(line.Commands))
	for i, c := range line.Commands {
		v := views[i]
		key, bound := learnKey(v.match, op, ld)
		if bound {
			keys[i] = key
		}
		p, err := d.part(op, PartCommand, v.match.Text(), keys[i])
		if err != nil {
			return nil, "", err
		}
		p.Text = c.Text()
		if v.why != "" {
			if p.Effect == EffectDeny {
				p.Kind, p.Reason = PartOpaque, "not understood ("+v.why+"), and "+p.Reason
			} else {
				p.Kind, p.Effect, p.Rule, p.Reason, p.approvers, p.quorum = PartOpaque, EffectAsk, "default", "not understood: "+v.why, nil, 0
			}
			// The script of sh -c '…' is looked into as well: a part
			// of it that is denied or needs approvers decides the line
			// (it still asks).
			if script, ok := shellScript(c); ok && depth < 3 {
				inner := op
				inner.Resource = script
				nested, _, err := d.commandParts(inner, depth+1)
				if err != nil {
					return nil, "", err
				}
				for _, n := range nested {
					if n.Effect == EffectDeny || len(n.approvers) > 0 || n.quorum > 1 {
						parts = append(parts, n)
					}
				}
			}
		}
		if v.why == "" && len(v.match.Args) > 0 && v.match.Args[0].Value == "tee" && p.Effect == EffectAsk && p.Rule == "default" {
			p.Effect, p.Reason = EffectAllow, "tee only writes its files, each decided as a file write"
		}
		words := make([]string, 0, len(c.Assigns)+len(c.Args))
		for _, ws := range [][]ShellWord{c.Assigns, c.Args} {
			for _, w := range ws {
				words = append(words, w.Value)
			}
		}
		if err := d.frictionFor(op, words, &p); err != nil {
			return nil, "", err
		}
		d.operandFriction(op, v.match, ld, &p)
		parts = append(parts, p)
		for _, w := range v.writes {
			if err := d.file(op, OpFileWrite, w, ld, &parts); err != nil {
				return nil, "", err
			}
		}
	}
	for _, w := range line.Writes {
		if err := d.file(op, OpFileWrite, w, ld, &parts); err != nil {
			return nil, "", err
		}
	}
	for _, w := range line.Reads {
		if err := d.file(op, OpFileRead, w, ld, &parts); err != nil {
			return nil, "", err
		}
	}
	// A part the policy cannot read meets every friction rule whose
	// command words appear anywhere in the line: what a shell reads
	// from a pipe, an interpreter's string, an alias's value.
	for i := range parts {
		if parts[i].Kind == PartOpaque {
			if err := d.textFriction(op, op.Resource, &parts[i]); err != nil {
				return nil, "", err
			}
		}
	}
	// Exactly one part, a command the policy understands: an opaque
	// node or command, a file written or read, each is a part of its
	// own; friction that matched made it deny or ask with people, which
	// Teachable() refuses.
	if len(parts) == 1 && parts[0].Kind == PartCommand && !parts[0].unplaced {
		single = keys[0] // "" when a file it runs has no hash
	}
	return parts, single, nil
}

// frictionFor applies the friction rules that match the command's words
// generously to p, when they add more friction than p has: a deny beats
// everything; approvers or a quorum beat an allow or a plain ask.
func (d Decider) frictionFor(op Operation, words []string, p *partDecision) error {
	var read []spelling
	for _, r := range d.Rules {
		if !r.AddsFriction() {
			continue
		}
		if read == nil {
			read = readings(words)
		}
		if !matchesGenerously(r, op, words, read) {
			continue
		}
		if r.Effect == EffectDeny {
			if p.Effect != EffectDeny {
				p.Effect, p.Rule, p.approvers, p.quorum = EffectDeny, r.Name, nil, 0
				p.Reason = "rule " + r.Name + " (it matches every spelling of the command)"
			}
			return nil
		}
		if p.Effect == EffectDeny {
			continue
		}
		if p.Effect == EffectAllow || len(p.approvers) == 0 && p.quorum <= 1 || r.Quorum > p.quorum {
			p.Effect, p.Rule, p.approvers, p.quorum = EffectAsk, r.Name, r.Approvers, r.Quorum
			p.Reason = "rule " + r.Name + " (it matches every spelling of the command)"
		}
	}
	return nil
}

// file decides a file a command line writes or reads, as the file_write
// or file_read operation it is. The terminal's own files are no files.
// A path is decided in every directory the line may read it in (see
// place); one the policy cannot place asks.
func (d Decider) file(op Operation, t OpType, w ShellWord, ld lineDirs, parts *[]partDecision) error {
	kind := PartWrite
	if t == OpFileRead {
		kind = PartRead
	}
	if !w.Literal {
		p := partDecision{DecisionPart: DecisionPart{Kind: kind, Text: w.Text, Effect: EffectAsk, Rule: "default", Reason: "the path is computed when the command runs"}}
		fop := op
		fop.Type = t
		fop.Resource = w.Value
		dec, err := d.single(fop)
		if err != nil {
			return err
		}
		if dec.Effect == EffectDeny || len(dec.Approvers) > 0 || dec.Quorum > 1 {
			p.Effect, p.Rule, p.approvers, p.quorum, p.Reason = dec.Effect, dec.Rule, dec.Approvers, dec.Quorum, orReason("", dec)
		}
		*parts = append(*parts, p)
		return nil
	}
	fp, rs := place(w.Value, w.Tilde(), op.Home, op.Cwd, ld)
	if slices.Contains(terminalFiles, fp.value) {
		return nil
	}
	p, err := d.path(op, t, fp, rs, w.Text, false)
	if err != nil {
		return err
	}
	p.Kind = kind
	*parts = append(*parts, p)
	return nil
}

// path decides a normalised path for an operation of type t, in each of
// its readings (rs: placed in the line's directories; what the edge
// resolved each to): the strictest decision holds. A path under an
// unknown home or one the policy cannot place is never allowed but meets
// the friction rules of its candidates; /dev/tcp is the network; under:
// the operation reads everything beneath the path.
func (d Decider) path(op Operation, t OpType, fp filePath, rs []reading, text string, under bool) (partDecision, error) {
	if fp.network {
		return partDecision{DecisionPart: DecisionPart{Kind: PartOpaque, Text: text, Effect: EffectAsk, Rule: "default",
			Reason: "not understood: " + fp.value + " opens a network connection"}}, nil
	}
	p, err := d.pathAs(op, t, fp, text, false, under)
	if err != nil {
		return p, err
	}
	type alt struct {
		fp    filePath
		shown string
	}
	var alts []alt
	for _, r := range rs[min(1, len(rs)):] {
		alts = append(alts, alt{filePath{value: r.value}, text + " (" + r.value + ")"})
	}
	reals := map[string]bool{}
	for _, r := range append([]reading{{fp.value, fp.value}}, rs...) {
		if real, ok := op.Paths[r.key]; ok && path.IsAbs(real) && path.Clean(real) != r.value && !reals[path.Clean(real)] {
			reals[path.Clean(real)] = true
			rp := normalisePath(real, false, "")
			alts = append(alts, alt{rp, text + " (" + rp.value + ")"})
		}
	}
	for _, a := range alts {
		if a.fp.network && p.Effect != EffectDeny {
			return partDecision{DecisionPart: DecisionPart{Kind: PartOpaque, Text: a.shown, Effect: EffectAsk, Rule: "default",
				Reason: "not understood: " + a.fp.value + " opens a network connection"}}, nil
		}
		// What an edge says of a path, and each other reading, only ever
		// adds friction: the stricter decision holds.
		q, err := d.pathAs(op, t, a.fp, a.shown, true, under)
		if err != nil {
			return q, err
		}
		if stricter(q, p) {
			p = q
		}
	}
	if fp.unplaceable != "" && p.Effect == EffectAllow {
		p.Effect, p.Rule, p.Reason, p.approvers, p.quorum = EffectAsk, "default", "not placed: "+fp.unplaceable, nil, 0
	}
	if len(rs) == 0 && fp.unplaceable == "" && !fp.homeUnknown && fp.value != "" && !path.IsAbs(fp.value) {
		d.unknownDirFriction(op, t, fp.value, under, &p) // relative, and nobody sent the working directory
	}
	return p, nil
}

// stricter reports whether a gives more friction than b: deny, then an
// ask with a larger quorum or with approvers, then an ask, then allow.
func stricter(a, b partDecision) bool {
	rank := func(p partDecision) int {
		switch {
		case p.Effect == EffectDeny:
			return 1000
		case p.Effect == EffectAsk && (p.quorum > 1 || len(p.approvers) > 0):
			return 10 + p.quorum
		case p.Effect == EffectAsk:
			return 1
		}
		return 0
	}
	return rank(a) > rank(b)
}

// pathAs decides one normalised path (linked: it is another reading of
// it, shown as it is; under: everything beneath it is read).
func (d Decider) pathAs(op Operation, t OpType, fp filePath, text string, linked, under bool) (partDecision, error) {
	fop := Operation{Type: t, Risk: op.Risk, Resource: fp.value, Agent: op.Agent, Description: op.Description, Prompted: op.Prompted, FoldCase: op.FoldCase}
	dec, err := d.single(fop)
	if err != nil {
		return partDecision{}, err
	}
	shown := text
	if fp.value != text && !fp.homeUnknown && !linked {
		shown = text + " (" + fp.value + ")"
		if text == "" {
			shown = fp.value
		}
	}
	p := partDecision{DecisionPart: DecisionPart{Text: shown, Effect: dec.Effect, Rule: dec.Rule, Reason: orReason("", dec)}, approvers: dec.Approvers, quorum: dec.Quorum}
	if fp.homeUnknown && p.Effect == EffectAllow {
		p.Effect, p.Rule, p.Reason, p.approvers, p.quorum = EffectAsk, "default", "the agent's home directory is not known, so no rule allows a path under it", nil, 0
	}
	names := []string{}
	if fp.homeUnknown || fp.unplaceable != "" {
		names = append(names, fp.candidates...)
	}
	if under && path.IsAbs(fp.value) {
		names = append(names, fp.value)
	}
	for _, c := range names {
		cop := fop
		cop.Resource = c
		for _, r := range d.Rules {
			if !r.AddsFriction() || !matchesFile(r, cop, under) {
				continue
			}
			if r.Effect == EffectDeny && p.Effect != EffectDeny {
				p.Effect, p.Rule, p.approvers, p.quorum, p.Reason = EffectDeny, r.Name, nil, 0, "rule "+r.Name+" (it matches "+c+")"
			} else if p.Effect != EffectDeny && r.Effect == EffectAsk && (p.Effect == EffectAllow || r.Quorum >= p.quorum && len(p.approvers) == 0) {
				p.Effect, p.Rule, p.approvers, p.quorum, p.Reason = EffectAsk, r.Name, r.Approvers, r.Quorum, "rule "+r.Name+" (it matches "+c+")"
			}
			if under && !matchesFile(r, cop, false) {
				p.Reason = "rule " + r.Name + " (it matches files beneath " + c + ", all of which are read)"
			}
		}
	}
	return p, nil
}

// part decides one simple command of a line: the rules see its text, a
// learned rule is found by key (learnKey; none when key is "").
func (d Decider) part(op Operation, kind, text, key string) (partDecision, error) {
	pop := op
	pop.Resource = text
	dec := d.configured(pop)
	if key != "" {
		lop := pop
		lop.Resource = key
		var err error
		if dec, err = d.learned(lop, dec); err != nil {
			return partDecision{}, err
		}
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

// parseOnce parses each line once for one decision: the parts, the grant
// and the risk labels read the same command line (and a shell's -c script).
// The parsed line is read, never changed.
func parseOnce(parse CommandParser) CommandParser {
	type parsed struct {
		line *CommandLine
		err  error
	}
	seen := map[string]parsed{}
	return func(line string) (*CommandLine, error) {
		if p, ok := seen[line]; ok {
			return p.line, p.err
		}
		l, err := parse(line)
		seen[line] = parsed{l, err}
		return l, err
	}
}
