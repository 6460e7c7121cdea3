package policy

import (
	"path"
	"strings"

	"github.com/hitlbot/hitl"
)

// A command's operands name files too: cat ~/.ssh/id_rsa reads the file
// a redirection < ~/.ssh/id_rsa would. Rules that add friction to a file
// (deny, approvers, quorum) match the files a command's words name, read
// generously: every literal word after the program that is not an option,
// and the value of an --option=VALUE, cleaned and with ~ expanded as any
// path is (normalisePath). A word that is no path (a grep pattern) meets
// only a file rule whose glob it happens to match, which adds friction,
// never removes it. Operands never allow anything: a command line is
// allowed by its command rules and its redirections' files alone.

// operandTypes is what a command does to the files its operands name:
// file_read for every command, and file_delete or file_write as well for
// the commands that delete or write them (the last operand of cp, mv, ln
// and install is where they write).
func operandTypes(prog string, last bool) []hitl.OpType {
	switch prog {
	case "rm", "rmdir", "unlink", "shred", "srm":
		return []hitl.OpType{hitl.OpFileRead, hitl.OpFileDelete}
	case "touch", "truncate", "mkdir", "chmod", "chown", "chgrp", "dd", "tee":
		return []hitl.OpType{hitl.OpFileRead, hitl.OpFileWrite}
	case "cp", "mv", "ln", "install", "rsync", "scp":
		if last {
			return []hitl.OpType{hitl.OpFileRead, hitl.OpFileWrite}
		}
		if prog == "mv" {
			return []hitl.OpType{hitl.OpFileRead, hitl.OpFileDelete}
		}
	}
	return []hitl.OpType{hitl.OpFileRead}
}

// operandWord is the path a word names, if any: the word itself, or the
// value of --option=VALUE; "" for an option or a word naming nothing.
func operandWord(w string) string {
	if strings.HasPrefix(w, "-") {
		if _, v, ok := strings.Cut(w, "="); ok {
			return v
		}
		return ""
	}
	return w
}

// operandWords are the words of c after the program that may name files
// (literal, not an option unless --option=VALUE).
func operandWords(c ShellCommand) []ShellWord {
	var out []ShellWord
	for i, w := range c.Args {
		if i == 0 || !w.Literal || operandWord(w.Value) == "" {
			continue
		}
		out = append(out, w)
	}
	return out
}

// placeable reports whether an operand of c must be placed for c to be
// allowed: not the words of a command that prints them (echo), the
// directory cd goes to, or a subcommand.
func placeable(c ShellCommand, w ShellWord) bool {
	if len(c.Args) < 2 {
		return false
	}
	prog := path.Base(c.Args[0].Value)
	a, known := commandArgs[prog]
	switch {
	case known && a.Literal, prog == "cd", prog == "pushd", prog == "popd", prog == "chdir":
		return false
	case known && a.Sub != nil:
		if _, sub := a.Sub[w.Value]; sub {
			return false
		}
	}
	return true
}

// recursiveRead reports whether c reads every file beneath a directory it
// names: grep -r, rg, find, diff -r, cp -r, tar -c, git diff --no-index,
// rsync -r/-a, zip -r. Its operands then meet every rule about the paths
// beneath them.
func recursiveRead(c ShellCommand) bool {
	if len(c.Args) == 0 {
		return false
	}
	prog := path.Base(c.Args[0].Value)
	has := func(short string, long ...string) bool {
		for _, w := range c.Args[1:] {
			v := w.Value
			if v == "--" {
				return false
			}
			for _, l := range long {
				if v == l || strings.HasPrefix(v, l+"=") || strings.HasPrefix(l, v) && strings.HasPrefix(v, "--") && len(v) > 3 {
					return true
				}
			}
			if strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.ContainsAny(v[1:], short) {
				return true
			}
		}
		return false
	}
	switch prog {
	case "rg", "find", "ag", "ack":
		return true
	case "grep", "egrep", "fgrep":
		return has("rR", "--recursive", "--dereference-recursive", "--directories=recurse")
	case "diff":
		return has("r", "--recursive")
	case "cp", "scp":
		return has("rRa", "--recursive", "--archive")
	case "rsync":
		return has("ra", "--recursive", "--archive")
	case "zip":
		return has("r", "--recurse-paths")
	case "tar":
		return true // tar -c reads directories whole; tar -t reads an archive
	case "git":
		for _, w := range c.Args[1:] {
			if w.Value == "--no-index" {
				return true
			}
		}
	}
	return false
}

// matchesFile reports whether r, a rule about files, applies to op:
// beneath op's path too when the operation reads recursively, without
// case when the agent's filesystem folds case.
func matchesFile(r hitl.Rule, op hitl.Operation, under bool) bool {
	if op.FoldCase && isFileOp(op.Type) {
		r.Resource, op.Resource = strings.ToLower(r.Resource), strings.ToLower(op.Resource)
	}
	if RuleMatches(r, op) {
		return true
	}
	if !under || r.Resource == "" {
		return false
	}
	pattern := r.Resource
	r.Resource = ""
	return RuleMatches(r, op) && globUnder(pattern, op.Resource)
}

// operandFriction applies to p the file rules that add friction and match
// a file c's operands name (the words of c.Args after the program), in
// every reading of each: placed in the line's directories, as the edge
// resolved it, beneath it for a command that reads recursively. An
// operand the policy cannot place makes p ask.
func (d Decider) operandFriction(op hitl.Operation, c ShellCommand, ld lineDirs, p *partDecision) {
	if len(c.Args) == 0 || p.Effect == hitl.EffectDeny {
		return
	}
	prog := path.Base(c.Args[0].Value)
	under := recursiveRead(c)
	// apply applies the friction rules that match name (beneath it too)
	// for an operation of type t; it reports a deny.
	apply := func(t hitl.OpType, name string, beneath bool) bool {
		fop := hitl.Operation{Type: t, Risk: op.Risk, Resource: name, Agent: op.Agent, Description: op.Description, Prompted: op.Prompted, FoldCase: op.FoldCase}
		for _, r := range d.Rules {
			if !r.AddsFriction() || !matchesFile(r, fop, beneath) {
				continue
			}
			why := "rule " + r.Name + " (it matches the file " + name + " the command names)"
			if beneath && !matchesFile(r, fop, false) {
				why = "rule " + r.Name + " (it matches files beneath " + name + ", which the command reads)"
			}
			if r.Effect == hitl.EffectDeny {
				p.Effect, p.Rule, p.approvers, p.quorum, p.Reason = hitl.EffectDeny, r.Name, nil, 0, why
				return true
			}
			if p.Effect == hitl.EffectAllow || len(p.approvers) == 0 && p.quorum <= 1 || r.Quorum > p.quorum {
				p.Effect, p.Rule, p.approvers, p.quorum, p.Reason = hitl.EffectAsk, r.Name, r.Approvers, r.Quorum, why
			}
		}
		return false
	}
	args := c.Args[1:]
	for i, w := range args {
		if !w.Literal {
			continue
		}
		v := operandWord(w.Value)
		if v == "" {
			continue
		}
		fp, rs := place(v, w.Tilde(), op.Home, op.Cwd, ld)
		if fp.network {
			continue
		}
		if fp.unplaceable != "" && placeable(c, w) {
			p.unplaced = true
			if p.Effect == hitl.EffectAllow {
				p.Effect, p.Rule, p.Reason, p.approvers, p.quorum = hitl.EffectAsk, "default", "not placed: "+fp.unplaceable, nil, 0
			}
		}
		names := []string{fp.value}
		if fp.homeUnknown || fp.unplaceable != "" {
			names = append(names, fp.candidates...)
		}
		for _, r := range rs {
			names = append(names, r.value)
			if real, ok := op.Paths[r.key]; ok && path.IsAbs(real) {
				names = append(names, cleanPath(real))
			}
		}
		if real, ok := op.Paths[fp.value]; ok && path.IsAbs(real) {
			names = append(names, cleanPath(real))
		}
		unknownDir := len(rs) == 0 && fp.unplaceable == "" && !fp.homeUnknown && fp.value != "" && !path.IsAbs(fp.value) && placeable(c, w) &&
			!notAFile(c, i+1)
		for _, t := range operandTypes(prog, i == len(args)-1) {
			for _, name := range names {
				// a directory nobody placed is matched as written
				if apply(t, name, under && t == hitl.OpFileRead && path.IsAbs(name)) {
					return
				}
			}
			if unknownDir {
				d.unknownDirFriction(op, t, fp.value, under && t == hitl.OpFileRead, p)
			}
		}
	}
	// grep -r PATTERN, rg PATTERN, find with no starting point read the
	// working directory: every rule beneath it applies
	if readsWorkingDir(c) {
		if len(ld.dirs) == 0 || ld.why != "" {
			d.unknownDirFriction(op, hitl.OpFileRead, ".", true, p)
		}
		for _, dir := range ld.dirs {
			if ld.why == "" && apply(hitl.OpFileRead, dir, true) {
				return
			}
		}
	}
	if f := followsLinks(c); f != "" {
		d.unknownFriction(op, hitl.OpFileRead, prog+" "+f+" follows symbolic links beneath the directories it reads, wherever they lead",
			func(string) bool { return true }, p)
	}
}
