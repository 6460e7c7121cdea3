package policy

import (
	"path"
	"slices"
	"strings"

	"github.com/hitlbot/hitl"
)

// Friction matches generously. A rule that denies, or names approvers or
// a quorum, matches every spelling of its command: the program's base
// name (/bin/rm is rm), short flags split and long and short aliases
// folded for the commands in the argument table (-rf = -fr = -r -f =
// --recursive --force), global options before a subcommand skipped
// (terraform -chdir=. apply, git -C dir push), environment assignments
// and wrappers skipped (FOO=1 sudo nice rm), paths cleaned (// and /.).
// An allow rule matches only the canonical spelling (RuleMatches).

// spelling is one reading of a command: its program's base name, its
// flags (split and folded) and its other words in order.
type spelling struct {
	program  string
	flags    []string
	operands []string
}

// readings are the spellings a friction rule is matched against: the
// command as written, and what it runs through wrappers, each with and
// without the options before a subcommand.
//
// The readings are bounded, whatever the line: each suffix of the words is
// read once (so a chain of wrappers costs no more than its length), and at
// most maxSkipped options are skipped before a subcommand.
func readings(words []string) []spelling {
	var out []spelling
	seen := map[string]bool{}
	visited := map[int]bool{} // suffixes read, by length
	var add func(ws []string)
	add = func(ws []string) {
		// environment assignments before the program are skipped
		for len(ws) > 0 && isAssignment(ws[0]) {
			ws = ws[1:]
		}
		if len(ws) == 0 || visited[len(ws)] {
			return
		}
		visited[len(ws)] = true
		prog := path.Base(ws[0])
		rest := ws[1:]
		// global options before a subcommand: every way of skipping a
		// run of options (each perhaps with a value) is a reading.
		for j := 0; j <= len(rest) && j <= maxSkipped; j++ {
			if j > 0 && !skippable(rest, j) {
				break
			}
			s := spell(prog, rest[j:])
			key := s.program + "\x00" + strings.Join(s.flags, " ") + "\x00" + strings.Join(s.operands, "\x00")
			if !seen[key] {
				seen[key] = true
				out = append(out, s)
			}
		}
		// what a wrapper runs: every later word that is no option could
		// be the command it runs.
		if wrappers[prog] || shells[prog] || prog == "env" || prog == "command" || prog == "builtin" || prog == "exec" || prog == "find" {
			for j, w := range rest {
				if !strings.HasPrefix(w, "-") && !isAssignment(w) {
					add(rest[j:])
				}
			}
		}
	}
	add(words)
	return out
}

const maxSkipped = 8

// skippable reports whether rest[:j] can all be options and their
// values: each word is an option, or the value of the option before it.
func skippable(rest []string, j int) bool {
	for i := 0; i < j; i++ {
		if strings.HasPrefix(rest[i], "-") && rest[i] != "-" && rest[i] != "--" {
			continue
		}
		if i > 0 && strings.HasPrefix(rest[i-1], "-") && !strings.Contains(rest[i-1], "=") {
			continue // the value of the option before it
		}
		return false
	}
	return true
}

func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// spell reads prog's words: flags split and folded for table commands,
// the rest cleaned and kept in order.
func spell(prog string, ws []string) spelling {
	s := spelling{program: prog}
	t, inTable := commandArgs[prog]
	for i, w := range ws {
		switch {
		case w == "--":
			for _, o := range ws[i+1:] {
				s.operands = append(s.operands, cleanOperand(o))
			}
			slices.Sort(s.flags)
			s.flags = slices.Compact(s.flags)
			return s
		case strings.HasPrefix(w, "--") || !strings.HasPrefix(w, "-") || w == "-":
			if strings.HasPrefix(w, "--") {
				name, _, _ := strings.Cut(w, "=")
				if short, ok := t.Aliases[name]; ok {
					s.flags = append(s.flags, short)
					continue
				}
				s.flags = append(s.flags, w)
				continue
			}
			s.operands = append(s.operands, cleanOperand(w))
		case inTable && !t.LongSingleDash:
			for _, c := range w[1:] {
				f := "-" + string(c)
				if short, ok := t.Aliases[f]; ok {
					f = short
				}
				s.flags = append(s.flags, f)
			}
		default:
			s.flags = append(s.flags, w)
		}
	}
	slices.Sort(s.flags)
	s.flags = slices.Compact(s.flags)
	return s
}

// cleanOperand cleans a word that names a path: //x and /x/. are /x.
func cleanOperand(w string) string {
	if strings.HasPrefix(w, "/") || strings.HasPrefix(w, "./") || strings.HasPrefix(w, "~/") {
		c := path.Clean(w)
		if strings.HasPrefix(w, "~/") && c == "~" {
			return "~"
		}
		return c
	}
	return w
}

// matchesGenerously reports whether friction rule r (a shell rule)
// matches the command words, read every way (their readings).
func matchesGenerously(r hitl.Rule, op hitl.Operation, words []string, read []spelling) bool {
	probe := op
	probe.Resource = ""
	rr := r
	rr.Resource = ""
	if !RuleMatches(rr, probe) {
		return false // the type, risk and agent must match as written
	}
	if r.Resource == "" {
		return true
	}
	if RuleMatches(r, hitl.Operation{Type: op.Type, Risk: op.Risk, Agent: op.Agent, Resource: strings.Join(words, " ")}) {
		return true // the rule as written, over the words as they are
	}
	rw := strings.Fields(r.Resource)
	for len(rw) > 0 && isAssignment(rw[0]) {
		rw = rw[1:]
	}
	if len(rw) == 0 {
		return false
	}
	want := spell(path.Base(rw[0]), rw[1:])
	for _, got := range read {
		if want.matches(got) {
			return true
		}
	}
	return false
}

// matches reports whether reading got is spelled by the rule's reading s:
// the same program (a glob), the rule's flags among got's, and the rule's
// other words a prefix of got's (or, with a wildcard, a glob over them).
func (s spelling) matches(got spelling) bool {
	if !GlobMatch(s.program, got.program) {
		return false
	}
	for _, f := range s.flags {
		if !slices.ContainsFunc(got.flags, func(g string) bool { return GlobMatch(f, g) }) {
			return false
		}
	}
	wild := false
	for _, o := range s.operands {
		wild = wild || strings.ContainsAny(o, "*?")
	}
	if wild {
		return GlobMatch(strings.Join(s.operands, " "), strings.Join(got.operands, " "))
	}
	return len(s.operands) <= len(got.operands) && slices.Equal(s.operands, got.operands[:len(s.operands)])
}

// textFriction applies to p (a part the policy cannot read) every
// friction rule whose command words appear anywhere in text: the words
// are read twice, once with quotes and backslashes removed (r\m 'rm' is
// rm) and once with them as separators (alias.x='!terraform apply' holds
// terraform apply), and from every word that could be a rule's program
// on. Friction never fails open on a line the policy cannot read.
func (d Decider) textFriction(op hitl.Operation, text string, p *partDecision) error {
	var programs []string
	for _, r := range d.Rules {
		if !r.AddsFriction() {
			continue
		}
		rw := strings.Fields(r.Resource)
		for len(rw) > 0 && isAssignment(rw[0]) {
			rw = rw[1:]
		}
		if len(rw) == 0 {
			programs = append(programs, "*")
			continue
		}
		programs = append(programs, path.Base(rw[0]))
	}
	if len(programs) == 0 {
		return nil
	}
	joined := strings.NewReplacer(`\`, "", `'`, "", `"`, "").Replace(text)
	for _, t := range []string{joined, text} {
		words := strings.FieldsFunc(t, func(r rune) bool {
			return strings.ContainsRune(" \t\n\r;&|()<>`'\"${}\\!", r)
		})
		for i, w := range words {
			if !slices.ContainsFunc(programs, func(prog string) bool { return GlobMatch(prog, path.Base(w)) }) {
				continue
			}
			end := min(len(words), i+maxTextWords)
			if err := d.frictionFor(op, words[i:end], p); err != nil {
				return err
			}
		}
	}
	return nil
}

// maxTextWords bounds how many words after a program textFriction reads.
const maxTextWords = 64
