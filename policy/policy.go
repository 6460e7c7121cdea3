package policy

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
)

// Approval policies (docs/policies.md, docs/protocol.md#approvals): what an operation an agent wants
// to carry out needs: a person's decision (ask: the original "Always"),
// nothing (allow: "Never") or a refusal (deny). Rules are ordered; the first match wins;
// when none matches, the default policy applies.

var risks = []hitl.Risk{hitl.RiskLow, hitl.RiskMedium, hitl.RiskHigh, hitl.RiskCritical}

var sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

var opTypePattern = regexp.MustCompile(`^[a-z][a-z0-9_.:-]{0,63}$`)

// ValidateOperation checks an operation an agent sent.
func ValidateOperation(o *hitl.Operation) error {
	switch {
	case !opTypePattern.MatchString(string(o.Type)):
		return fault.Errorf(fault.EINVALID, "opType %q is invalid: use file_delete, file_write, file_read, shell, api_call, spawn_agent or a lowercase name of your own", o.Type)
	case strings.TrimSpace(o.Description) == "":
		return fault.Errorf(fault.EINVALID, "operation is required: say what the agent wants to do")
	case len(o.Description) > hitl.MaxDescriptionLen || len(o.Context) > hitl.MaxFieldLen || len(o.Resource) > hitl.MaxFieldLen:
		return fault.Errorf(fault.EINVALID, "operation, context or resource is too long")
	case o.Home != "" && (!strings.HasPrefix(o.Home, "/") || len(o.Home) > 4096 || strings.ContainsAny(o.Home, "\x00\n")):
		return fault.Errorf(fault.EINVALID, "home %q is invalid: send the agent's home directory as an absolute path", o.Home)
	case o.Cwd != "" && (!strings.HasPrefix(o.Cwd, "/") || len(o.Cwd) > 4096 || strings.ContainsAny(o.Cwd, "\x00\n")):
		return fault.Errorf(fault.EINVALID, "cwd %q is invalid: send the agent's working directory as an absolute path", o.Cwd)
	case len(o.Content) > hitl.MaxContentLen:
		return fault.Errorf(fault.EINVALID, "content is %d bytes: send at most %d (or none: the diff shows it)", len(o.Content), hitl.MaxContentLen)
	case o.Content != "" && o.Type != hitl.OpFileWrite:
		return fault.Errorf(fault.EINVALID, "content is the new text of a file change: send it with opType file_write only")
	case len(o.Hashes) > 64:
		return fault.Errorf(fault.EINVALID, "hashes has %d entries: send at most 64", len(o.Hashes))
	case len(o.GitConfig) > 64:
		return fault.Errorf(fault.EINVALID, "gitConfig has %d entries: send at most 64", len(o.GitConfig))
	case len(o.Paths) > 64:
		return fault.Errorf(fault.EINVALID, "paths has %d entries: send at most 64", len(o.Paths))
	}
	for p, h := range o.Hashes {
		if !strings.HasPrefix(p, "/") || len(p) > 4096 || h != hitl.FileAbsent && !sha256Hex.MatchString(h) {
			return fault.Errorf(fault.EINVALID, "hashes: %q -> %q is invalid: map an absolute path to the sha256 of its content (64 hex digits) or %q", p, h, hitl.FileAbsent)
		}
	}
	for from, to := range o.Paths {
		if from == "" || !strings.HasPrefix(to, "/") || len(from)+len(to) > 8192 {
			return fault.Errorf(fault.EINVALID, "paths: %q -> %q is invalid: map a path to the absolute path its symlinks lead to", from, to)
		}
	}
	if o.Risk != "" && !slices.Contains(risks, o.Risk) {
		return fault.Errorf(fault.EINVALID, "risk %q is invalid: use low, medium, high or critical", o.Risk)
	}
	return validateDiffs(o)
}

// RuleMatches reports whether r applies to op. For a shell operation op is
// one simple command of the line (its canonical text as Resource).
func RuleMatches(r hitl.Rule, op hitl.Operation) bool {
	if r.OpType != "" && r.OpType != op.Type {
		return false
	}
	if len(r.Risk) > 0 && !slices.Contains(r.Risk, op.Risk) {
		return false
	}
	if r.Agent != "" && r.Agent != op.Agent && "api:"+r.Agent != op.Agent && !(auth.IsLocal(r.Agent) && auth.IsLocal(op.Agent)) {
		return false // (a tokenless server's local person is one agent)
	}
	return r.Resource == "" || matchResource(r.Resource, op.Resource, op.Type == hitl.OpShell)
}

// matchResource matches a resource against a pattern: a glob where *
// matches any run of characters (slashes too, so URLs and nested paths
// match) and ? one character. For a shell command, a pattern without
// wildcards is a prefix ending on a word boundary ("git push" matches
// "git push origin main", not "git pushx").
func matchResource(pattern, s string, command bool) bool {
	if command && !strings.ContainsAny(pattern, "*?") {
		return s == pattern || strings.HasPrefix(s, pattern+" ")
	}
	return GlobMatch(pattern, s)
}

// GlobMatch matches s against pattern (* any run, ? any one character).
func GlobMatch(pattern, s string) bool {
	p, t := []rune(pattern), []rune(s)
	pi, ti, star, mark := 0, 0, -1, 0
	for ti < len(t) {
		switch {
		case pi < len(p) && (p[pi] == '?' || p[pi] == t[ti]):
			pi++
			ti++
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, ti
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			ti = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// ValidatePolicy checks the configured rules, naming the rule and the field.
func ValidatePolicy(p hitl.Policy) error {
	names := map[string]bool{}
	for i, r := range p.Rules {
		at := fmt.Sprintf("rule %d", i+1)
		if r.Name != "" {
			at = fmt.Sprintf("rule %d (%s)", i+1, r.Name)
		}
		switch {
		case strings.TrimSpace(r.Name) == "":
			return fault.Errorf(fault.EINVALID, "%s: name is required", at)
		case names[r.Name]:
			return fault.Errorf(fault.EINVALID, "%s: name: another rule has this name", at)
		case r.Effect != hitl.EffectAsk && r.Effect != hitl.EffectAllow && r.Effect != hitl.EffectDeny:
			return fault.Errorf(fault.EINVALID, "%s: effect %q is invalid: use ask, allow or deny", at, r.Effect)
		case r.OpType != "" && !opTypePattern.MatchString(string(r.OpType)):
			return fault.Errorf(fault.EINVALID, "%s: opType %q is invalid", at, r.OpType)
		case r.Quorum < 0 || r.Quorum > 10:
			return fault.Errorf(fault.EINVALID, "%s: quorum must be from 1 to 10, got %d", at, r.Quorum)
		case r.Quorum > 1 && len(r.Approvers) > 0 && r.Quorum > len(r.Approvers) && !hasGroup(r.Approvers):
			return fault.Errorf(fault.EINVALID, "%s: quorum %d needs at least as many approvers, got %d", at, r.Quorum, len(r.Approvers))
		case r.Effect != hitl.EffectAsk && (len(r.Approvers) > 0 || r.Quorum > 1):
			return fault.Errorf(fault.EINVALID, "%s: approvers and quorum only apply to effect ask", at)
		}
		if !r.ReminderPolicy.IsZero() && r.Effect != hitl.EffectAsk {
			return fault.Errorf(fault.EINVALID, "%s: reminders and escalation only apply to effect ask", at)
		}
		if err := r.ReminderPolicy.Validate(at); err != nil {
			return err
		}
		for _, k := range r.Risk {
			if !slices.Contains(risks, k) {
				return fault.Errorf(fault.EINVALID, "%s: risk %q is invalid: use low, medium, high or critical", at, k)
			}
		}
		for _, a := range r.Approvers {
			if strings.TrimSpace(a) == "" || strings.ContainsAny(a, " \t,") {
				return fault.Errorf(fault.EINVALID, "%s: approvers: %q is not a Slack user or group id or a token name", at, a)
			}
		}
		names[r.Name] = true
	}
	return nil
}

func hasGroup(ids []string) bool {
	for _, id := range ids {
		if strings.HasPrefix(id, "S") && auth.IsSlackID(id) {
			return true
		}
	}
	return false
}
