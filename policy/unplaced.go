package policy

import (
	"path"
	"slices"
	"strings"

	"github.com/hitlbot/hitl"
)

// Files nobody can place. A relative path in a decision made without the
// agent's working directory (POST /api/approvals or hitl policy check
// without cwd) may be any file: cat id_rsa reads ~/.ssh/id_rsa when the
// line runs in ~/.ssh. A command that follows symbolic links beneath the
// directories it reads (grep -R, find -L, rg -L …) reads wherever those
// links lead, which the words never say. Neither is ever allowed where a
// rule that adds friction to files could match what it reads: the part
// asks, carrying the approvers and quorum of the strictest such rule, and
// says why. Where no such rule could match, nothing a person wrote is
// dodged and the part is decided as before. A person may still teach such
// a command: the learned rule allows its words, and the same friction is
// applied again to every later decision, so it never allows what is read
// where nobody knows.

// couldMatchRelative reports whether pattern can match the relative path
// rel placed in some directory (or, under, a path beneath it): the
// boundary before rel is a / the pattern spells, or one its * or ?
// consumes.
func couldMatchRelative(pattern, rel string, under bool) bool {
	rel = strings.TrimPrefix(path.Clean(rel), "./")
	if rel == "." {
		return true // the directory itself: every file beneath some directory
	}
	s := "/" + rel
	for i := 0; i < len(pattern); i++ {
		if c := pattern[i]; c != '/' && c != '*' && c != '?' {
			continue
		}
		if GlobMatch(pattern[i:], s) || under && globUnder(pattern[i:], s) {
			return true
		}
	}
	return false
}

// unknownFriction makes p ask when a rule that adds friction to an
// operation of type t on files could match what the part reads (match
// says whether it could, given the rule's pattern); why says what the
// policy cannot know. The strictest such rule's approvers and quorum go
// with the ask.
func (d Decider) unknownFriction(op hitl.Operation, t hitl.OpType, why string, match func(pattern string) bool, p *partDecision) {
	if p.Effect == hitl.EffectDeny {
		return
	}
	fop := hitl.Operation{Type: t, Risk: op.Risk, Agent: op.Agent, Description: op.Description, Prompted: op.Prompted, FoldCase: op.FoldCase}
	for _, r := range d.Rules {
		if !r.AddsFriction() || !isFileOp(t) {
			continue
		}
		pattern := r.Resource
		r.Resource = ""
		if !RuleMatches(r, fop) || pattern != "" && !match(pattern) {
			continue
		}
		q := partDecision{DecisionPart: hitl.DecisionPart{Kind: p.Kind, Text: p.Text, Effect: hitl.EffectAsk, Rule: r.Name,
			Reason: "not placed: " + why + ", which rule " + r.Name + " may cover"}, approvers: r.Approvers, quorum: r.Quorum}
		if r.Effect == hitl.EffectDeny {
			q.approvers, q.quorum = nil, 0
		}
		if p.Effect == hitl.EffectAllow || stricter(q, *p) {
			p.Effect, p.Rule, p.Reason, p.approvers, p.quorum = q.Effect, q.Rule, q.Reason, q.approvers, q.quorum
		}
	}
}

// unknownDirFriction: rel, a relative path, read in a working directory
// nobody sent (under: everything beneath it is read).
func (d Decider) unknownDirFriction(op hitl.Operation, t hitl.OpType, rel string, under bool, p *partDecision) {
	d.unknownFriction(op, t, "the working directory was not sent, so "+rel+" may be any file named so",
		func(pattern string) bool {
			if op.FoldCase {
				return couldMatchRelative(strings.ToLower(pattern), strings.ToLower(rel), under)
			}
			return couldMatchRelative(pattern, rel, under)
		}, p)
}

// followsLinks reports whether c, a recursive read, follows symbolic
// links it meets beneath the directories it names, and the option that
// says so ("" when it does not).
func followsLinks(c ShellCommand) string {
	if len(c.Args) == 0 {
		return ""
	}
	prog := path.Base(c.Args[0].Value)
	find := func(short string, long ...string) string {
		for _, w := range c.Args[1:] {
			v := w.Value
			if v == "--" {
				return ""
			}
			for _, l := range long {
				if v == l || strings.HasPrefix(v, l+"=") {
					return v
				}
			}
			if short != "" && strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.ContainsAny(v[1:], short) {
				return v
			}
		}
		return ""
	}
	switch prog {
	case "grep", "egrep", "fgrep":
		return find("R", "--dereference-recursive")
	case "find":
		for _, w := range c.Args[1:] {
			if w.Value == "-L" || w.Value == "-follow" {
				return w.Value
			}
		}
	case "rg":
		return find("L", "--follow")
	case "ag":
		return find("f", "--follow")
	case "ack":
		return find("", "--follow")
	case "diff":
		if recursiveRead(c) && find("", "--no-dereference") == "" {
			return "-r" // GNU diff follows links unless --no-dereference
		}
	case "zip":
		if recursiveRead(c) && find("y", "--symlinks") == "" {
			return "-r" // zip stores what links point to unless -y
		}
	case "tar":
		return find("h", "--dereference")
	case "cp", "scp", "rsync":
		if recursiveRead(c) {
			return find("L", "--dereference", "--copy-links", "--copy-unsafe-links")
		}
	}
	return ""
}

// readsWorkingDir reports whether c, a recursive read, reads its working
// directory because it names no path: grep -r PATTERN, rg PATTERN, find
// with no starting point.
func readsWorkingDir(c ShellCommand) bool {
	if len(c.Args) == 0 || !recursiveRead(c) {
		return false
	}
	prog := path.Base(c.Args[0].Value)
	var words []string
	patternGiven, dashdash := false, false
	opts := safeSpecs[prog]
	for i := 1; i < len(c.Args); i++ {
		v := c.Args[i].Value
		switch {
		case dashdash || !strings.HasPrefix(v, "-") || v == "-":
			words = append(words, v)
		case v == "--":
			dashdash = true
		case prog == "find":
			if v == "-D" || v == "-O" {
				i++
				continue
			}
			if v == "-H" || v == "-L" || v == "-P" {
				continue
			}
			return len(words) == 0 // the expression starts: the starting points are before it
		default:
			name, _, stuck := strings.Cut(v, "=")
			if name == "-e" || name == "-f" || name == "--regexp" || name == "--file" || strings.HasPrefix(v, "-e") && !strings.HasPrefix(v, "--") || strings.HasPrefix(v, "-f") && !strings.HasPrefix(v, "--") {
				patternGiven = true
				if !stuck && (v == "-e" || v == "-f" || v == "--regexp" || v == "--file") {
					i++
				}
				continue
			}
			if k, ok := opts[v]; ok && k == valueOption && !stuck {
				i++ // the option's value
			}
		}
	}
	switch prog {
	case "find":
		return len(words) == 0
	case "grep", "egrep", "fgrep", "rg", "ag", "ack":
		if patternGiven {
			return len(words) == 0
		}
		return len(words) <= 1
	}
	return false
}

// notAFile reports whether the word c.Args[i] names no file the command
// reads wherever it runs: the pattern of grep, rg, ag and ack, the script
// of sed, awk and jq (when no -e or -f gives it), a make target or
// variable. Only a working directory nobody sent makes this matter.
func notAFile(c ShellCommand, i int) bool {
	prog := path.Base(c.Args[0].Value)
	switch prog {
	case "make", "gmake":
		prev := c.Args[i-1].Value
		return !slices.Contains([]string{"-f", "--file", "--makefile", "-C", "--directory", "-I", "--include-dir", "-o", "-W", "--old-file", "--what-if", "--new-file", "--assume-old", "--assume-new"}, prev)
	case "grep", "egrep", "fgrep", "rg", "ag", "ack", "sed", "awk", "gawk", "mawk", "jq":
	default:
		return false
	}
	opts := safeSpecs[prog]
	for j := 1; j < len(c.Args); j++ {
		v := c.Args[j].Value
		switch {
		case v == "--":
			return j+1 == i && !scriptGiven(prog, c.Args[1:j])
		case !strings.HasPrefix(v, "-") || v == "-":
			return j == i && !scriptGiven(prog, c.Args[1:j])
		}
		if k, ok := opts[v]; ok && k == valueOption || v == "-e" || v == "-f" || v == "--regexp" || v == "--file" || v == "--expression" {
			j++ // the option's value
		}
	}
	return false
}

// scriptGiven reports whether options before the first operand give the
// pattern or script (-e, -f, --regexp, --file, --expression), so that
// the first operand is a file.
func scriptGiven(prog string, opts []ShellWord) bool {
	for _, w := range opts {
		v := w.Value
		if prog == "jq" {
			if v == "-f" || v == "--from-file" {
				return true
			}
			continue
		}
		if strings.HasPrefix(v, "--regexp") || strings.HasPrefix(v, "--file") || strings.HasPrefix(v, "--expression") ||
			strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.ContainsAny(v[1:], "ef") {
			return true
		}
	}
	return false
}
