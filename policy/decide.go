package policy

import (
	"path"
	"slices"
	"strings"
	"time"

	"github.com/hitlbot/hitl"
)

// Decider applies the policy: configured rules first (the first match
// wins), then, only where they ask with no approvers and a quorum of one,
// a learned rule for exactly the operation, then the default policy (docs/policies.md). A
// shell operation is decided part by part (see CommandLine): allowed only
// when every part is allowed, denied when any part is denied, asked
// otherwise.
type Decider struct {
	Rules []hitl.Rule
	// Parse parses shell command lines; nil: every shell operation asks.
	Parse CommandParser
	// Learned finds the learned rule for a key (nil when none); nil: no
	// learned rules.
	Learned func(hitl.LearnedRuleKey) (*hitl.LearnedRule, error)
	Now     time.Time
}

// Decide decides op. Its error is the learned-rule lookup's.
func (d Decider) Decide(op hitl.Operation) (hitl.Decision, error) {
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

func (d Decider) decide(op hitl.Operation) (hitl.Decision, error) {
	if op.Type != hitl.OpShell {
		var dec hitl.Decision
		var err error
		teach := true
		if isFileOp(op.Type) && op.Resource != "" {
			fp, rs := place(op.Resource, true, op.Home, op.Cwd, directories(nil, op.Home, op.Cwd))
			op.Resource = fp.value
			var p partDecision
			p, err = d.path(op, op.Type, fp, rs, op.Resource, op.Recursive)
			dec = hitl.Decision{Effect: p.Effect, Rule: p.Rule, Approvers: p.approvers, Quorum: p.quorum}
			teach = !fp.homeUnknown && !fp.network && fp.unplaceable == ""
		} else {
			dec, err = d.single(op)
		}
		if err != nil {
			return hitl.Decision{}, err
		}
		if teach && dec.Teachable() {
			dec.Learnable = true
			dec.Teaches = &hitl.LearnedRuleKey{Agent: op.Agent, OpType: op.Type, Resource: op.Resource}
		}
		return finish(dec), nil
	}
	parts, single, err := d.commandParts(op, 0)
	if err != nil {
		return hitl.Decision{}, err
	}
	dec := combine(parts)
	dec.Grant = d.GrantFor(op)
	if single != "" && dec.Teachable() {
		dec.Learnable = true
		dec.Teaches = &hitl.LearnedRuleKey{Agent: op.Agent, OpType: hitl.OpShell, Resource: single}
	}
	return finish(dec), nil
}

func finish(d hitl.Decision) hitl.Decision {
	if d.Effect == hitl.EffectAsk && d.Quorum < 1 {
		d.Quorum = 1
	}
	if d.Effect != hitl.EffectAsk {
		d.Approvers, d.Quorum = nil, 0
	}
	return d
}

// partDecision is one part decided, with the rule's approvers.
type partDecision struct {
	hitl.DecisionPart
	approvers []string
	quorum    int
	// unplaced: it names a path the policy cannot place, so no learned
	// rule may allow it either.
	unplaced bool
}

// single decides one operation that is not a command line (or one part
// of one): configured rules, learned rules, the default.
func (d Decider) single(op hitl.Operation) (hitl.Decision, error) {
	return d.learned(op, d.configured(op))
}

// configured decides op by the configured rules and the default.
func (d Decider) configured(op hitl.Operation) hitl.Decision {
	for _, r := range d.Rules {
		if matchesFile(r, op, false) {
			return hitl.Decision{Effect: r.Effect, Rule: r.Name, Approvers: r.Approvers, Quorum: r.Quorum}
		}
	}
	dec := hitl.Decision{Effect: hitl.EffectAsk, Rule: "default"}
	if e, ok := hitl.DefaultPolicy()[op.Type]; ok {
		dec.Effect = e
	}
	if op.Prompted && dec.Effect == hitl.EffectAllow {
		dec = hitl.Decision{Effect: hitl.EffectAsk, Rule: "default (the agent was about to ask its person: no rule allows this)"}
	}
	return dec
}

// learned turns an approver-less, quorum-1 ask into allow when a person
// taught exactly op, and the rule has not expired.
func (d Decider) learned(op hitl.Operation, dec hitl.Decision) (hitl.Decision, error) {
	if !dec.Teachable() || d.Learned == nil {
		return dec, nil
	}
	r, err := d.Learned(hitl.LearnedRuleKey{Agent: op.Agent, OpType: op.Type, Resource: op.Resource})
	if err != nil || r == nil || r.Expired(d.Now) {
		return dec, err
	}
	return hitl.Decision{Effect: hitl.EffectAllow, Rule: r.Name()}, nil
}

func isFileOp(t hitl.OpType) bool {
	return t == hitl.OpFileRead || t == hitl.OpFileWrite || t == hitl.OpFileDelete
}

// commandParts decides each part of a command line. single is the line's
// one simple command when that is all it is and it is fully understood
// (no opaque node, literal words, no assignment, arguments the table
// knows safe, no redirection, no file its arguments write) and no
// friction rule matches it generously: the only kind of line a person
// may teach.
func (d Decider) commandParts(op hitl.Operation, depth int) (parts []partDecision, single string, err error) {
	opaque := func(text, reason string) {
		parts = append(parts, partDecision{DecisionPart: hitl.DecisionPart{Kind: hitl.PartOpaque, Text: text, Effect: hitl.EffectAsk, Rule: "default", Reason: reason}})
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
		p := partDecision{DecisionPart: hitl.DecisionPart{Kind: hitl.PartOpaque, Text: op.Resource, Effect: hitl.EffectAsk, Rule: "default",
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
		p, err := d.part(op, hitl.PartCommand, v.match.Text(), keys[i])
		if err != nil {
			return nil, "", err
		}
		p.Text = c.Text()
		if v.why != "" {
			if p.Effect == hitl.EffectDeny {
				p.Kind, p.Reason = hitl.PartOpaque, "not understood ("+v.why+"), and "+p.Reason
			} else {
				p.Kind, p.Effect, p.Rule, p.Reason, p.approvers, p.quorum = hitl.PartOpaque, hitl.EffectAsk, "default", "not understood: "+v.why, nil, 0
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
					if n.Effect == hitl.EffectDeny || len(n.approvers) > 0 || n.quorum > 1 {
						parts = append(parts, n)
					}
				}
			}
		}
		if v.why == "" && len(v.match.Args) > 0 && v.match.Args[0].Value == "tee" && p.Effect == hitl.EffectAsk && p.Rule == "default" {
			p.Effect, p.Reason = hitl.EffectAllow, "tee only writes its files, each decided as a file write"
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
			if err := d.file(op, hitl.OpFileWrite, w, ld, &parts); err != nil {
				return nil, "", err
			}
		}
	}
	for _, w := range line.Writes {
		if err := d.file(op, hitl.OpFileWrite, w, ld, &parts); err != nil {
			return nil, "", err
		}
	}
	for _, w := range line.Reads {
		if err := d.file(op, hitl.OpFileRead, w, ld, &parts); err != nil {
			return nil, "", err
		}
	}
	// A part the policy cannot read meets every friction rule whose
	// command words appear anywhere in the line: what a shell reads
	// from a pipe, an interpreter's string, an alias's value.
	for i := range parts {
		if parts[i].Kind == hitl.PartOpaque {
			if err := d.textFriction(op, op.Resource, &parts[i]); err != nil {
				return nil, "", err
			}
		}
	}
	// Exactly one part, a command the policy understands: an opaque
	// node or command, a file written or read, each is a part of its
	// own; friction that matched made it deny or ask with people, which
	// Teachable() refuses.
	if len(parts) == 1 && parts[0].Kind == hitl.PartCommand && !parts[0].unplaced {
		single = keys[0] // "" when a file it runs has no hash
	}
	return parts, single, nil
}

// frictionFor applies the friction rules that match the command's words
// generously to p, when they add more friction than p has: a deny beats
// everything; approvers or a quorum beat an allow or a plain ask.
func (d Decider) frictionFor(op hitl.Operation, words []string, p *partDecision) error {
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
		if r.Effect == hitl.EffectDeny {
			if p.Effect != hitl.EffectDeny {
				p.Effect, p.Rule, p.approvers, p.quorum = hitl.EffectDeny, r.Name, nil, 0
				p.Reason = "rule " + r.Name + " (it matches every spelling of the command)"
			}
			return nil
		}
		if p.Effect == hitl.EffectDeny {
			continue
		}
		if p.Effect == hitl.EffectAllow || len(p.approvers) == 0 && p.quorum <= 1 || r.Quorum > p.quorum {
			p.Effect, p.Rule, p.approvers, p.quorum = hitl.EffectAsk, r.Name, r.Approvers, r.Quorum
			p.Reason = "rule " + r.Name + " (it matches every spelling of the command)"
		}
	}
	return nil
}

// file decides a file a command line writes or reads, as the file_write
// or file_read operation it is. The terminal's own files are no files.
// A path is decided in every directory the line may read it in (see
// place); one the policy cannot place asks.
func (d Decider) file(op hitl.Operation, t hitl.OpType, w ShellWord, ld lineDirs, parts *[]partDecision) error {
	kind := hitl.PartWrite
	if t == hitl.OpFileRead {
		kind = hitl.PartRead
	}
	if !w.Literal {
		p := partDecision{DecisionPart: hitl.DecisionPart{Kind: kind, Text: w.Text, Effect: hitl.EffectAsk, Rule: "default", Reason: "the path is computed when the command runs"}}
		fop := op
		fop.Type = t
		fop.Resource = w.Value
		dec, err := d.single(fop)
		if err != nil {
			return err
		}
		if dec.Effect == hitl.EffectDeny || len(dec.Approvers) > 0 || dec.Quorum > 1 {
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
func (d Decider) path(op hitl.Operation, t hitl.OpType, fp filePath, rs []reading, text string, under bool) (partDecision, error) {
	if fp.network {
		return partDecision{DecisionPart: hitl.DecisionPart{Kind: hitl.PartOpaque, Text: text, Effect: hitl.EffectAsk, Rule: "default",
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
		if a.fp.network && p.Effect != hitl.EffectDeny {
			return partDecision{DecisionPart: hitl.DecisionPart{Kind: hitl.PartOpaque, Text: a.shown, Effect: hitl.EffectAsk, Rule: "default",
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
	if fp.unplaceable != "" && p.Effect == hitl.EffectAllow {
		p.Effect, p.Rule, p.Reason, p.approvers, p.quorum = hitl.EffectAsk, "default", "not placed: "+fp.unplaceable, nil, 0
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
		case p.Effect == hitl.EffectDeny:
			return 1000
		case p.Effect == hitl.EffectAsk && (p.quorum > 1 || len(p.approvers) > 0):
			return 10 + p.quorum
		case p.Effect == hitl.EffectAsk:
			return 1
		}
		return 0
	}
	return rank(a) > rank(b)
}

// pathAs decides one normalised path (linked: it is another reading of
// it, shown as it is; under: everything beneath it is read).
func (d Decider) pathAs(op hitl.Operation, t hitl.OpType, fp filePath, text string, linked, under bool) (partDecision, error) {
	fop := hitl.Operation{Type: t, Risk: op.Risk, Resource: fp.value, Agent: op.Agent, Description: op.Description, Prompted: op.Prompted, FoldCase: op.FoldCase}
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
	p := partDecision{DecisionPart: hitl.DecisionPart{Text: shown, Effect: dec.Effect, Rule: dec.Rule, Reason: orReason("", dec)}, approvers: dec.Approvers, quorum: dec.Quorum}
	if fp.homeUnknown && p.Effect == hitl.EffectAllow {
		p.Effect, p.Rule, p.Reason, p.approvers, p.quorum = hitl.EffectAsk, "default", "the agent's home directory is not known, so no rule allows a path under it", nil, 0
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
			if r.Effect == hitl.EffectDeny && p.Effect != hitl.EffectDeny {
				p.Effect, p.Rule, p.approvers, p.quorum, p.Reason = hitl.EffectDeny, r.Name, nil, 0, "rule "+r.Name+" (it matches "+c+")"
			} else if p.Effect != hitl.EffectDeny && r.Effect == hitl.EffectAsk && (p.Effect == hitl.EffectAllow || r.Quorum >= p.quorum && len(p.approvers) == 0) {
				p.Effect, p.Rule, p.approvers, p.quorum, p.Reason = hitl.EffectAsk, r.Name, r.Approvers, r.Quorum, "rule "+r.Name+" (it matches "+c+")"
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
func (d Decider) part(op hitl.Operation, kind, text, key string) (partDecision, error) {
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
	return partDecision{DecisionPart: hitl.DecisionPart{Kind: kind, Text: text, Effect: dec.Effect, Rule: dec.Rule, Reason: orReason("", dec)},
		approvers: dec.Approvers, quorum: dec.Quorum}, nil
}

func orReason(reason string, dec hitl.Decision) string {
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
func combine(parts []partDecision) hitl.Decision {
	var ask *partDecision
	var allowRules []string
	for i := range parts {
		p := &parts[i]
		switch p.Effect {
		case hitl.EffectDeny:
			return hitl.Decision{Effect: hitl.EffectDeny, Rule: p.Rule, Parts: publicParts(parts)}
		case hitl.EffectAllow:
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
		return hitl.Decision{Effect: hitl.EffectAsk, Rule: ask.Rule, Approvers: ask.approvers, Quorum: ask.quorum, Parts: publicParts(parts)}
	}
	return hitl.Decision{Effect: hitl.EffectAllow, Rule: strings.Join(allowRules, ", "), Parts: publicParts(parts)}
}

func publicParts(parts []partDecision) []hitl.DecisionPart {
	out := make([]hitl.DecisionPart, len(parts))
	for i, p := range parts {
		out[i] = p.DecisionPart
	}
	return out
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
