package policy

import (
	"path"
	"strings"
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
func operandTypes(prog string, last bool) []OpType {
	switch prog {
	case "rm", "rmdir", "unlink", "shred", "srm":
		return []OpType{OpFileRead, OpFileDelete}
	case "touch", "truncate", "mkdir", "chmod", "chown", "chgrp", "dd", "tee":
		return []OpType{OpFileRead, OpFileWrite}
	case "cp", "mv", "ln", "install", "rsync", "scp":
		if last {
			return []OpType{OpFileRead, OpFileWrite}
		}
		if prog == "mv" {
			return []OpType{OpFileRead, OpFileDelete}
		}
	}
	return []OpType{OpFileRead}
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

// operandFriction applies to p the file rules that add friction and match
// a file c's operands name (the words of c.Args after the program).
func (d Decider) operandFriction(op Operation, c ShellCommand, p *partDecision) {
	if len(c.Args) < 2 || p.Effect == EffectDeny {
		return
	}
	prog := path.Base(c.Args[0].Value)
	args := c.Args[1:]
	for i, w := range args {
		if !w.Literal {
			continue
		}
		v := operandWord(w.Value)
		if v == "" {
			continue
		}
		fp := normalisePath(v, w.Tilde(), op.Home)
		if fp.network {
			continue
		}
		names := []string{fp.value}
		if fp.homeUnknown {
			names = append(names, fp.candidates...)
		}
		if real, ok := op.Paths[fp.value]; ok && path.IsAbs(real) {
			names = append(names, cleanPath(real))
		}
		for _, t := range operandTypes(prog, i == len(args)-1) {
			for _, name := range names {
				fop := Operation{Type: t, Risk: op.Risk, Resource: name, Agent: op.Agent, Description: op.Description, Prompted: op.Prompted}
				for _, r := range d.Rules {
					if !r.AddsFriction() || !r.Matches(fop) {
						continue
					}
					why := "rule " + r.Name + " (it matches the file " + name + " the command names)"
					if r.Effect == EffectDeny {
						p.Effect, p.Rule, p.approvers, p.quorum, p.Reason = EffectDeny, r.Name, nil, 0, why
						return
					}
					if p.Effect == EffectAllow || len(p.approvers) == 0 && p.quorum <= 1 || r.Quorum > p.quorum {
						p.Effect, p.Rule, p.approvers, p.quorum, p.Reason = EffectAsk, r.Name, r.Approvers, r.Quorum, why
					}
				}
			}
		}
	}
}
