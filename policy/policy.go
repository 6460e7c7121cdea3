package policy

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
)

// Approval policies (docs/policies.md, docs/protocol.md#approvals): what an operation an agent wants
// to carry out needs: a person's decision (ask: the original "Always"),
// nothing (allow: "Never") or a refusal (deny). Rules are ordered; the first match wins;
// when none matches, the default policy applies.

// OpType is the kind of an operation to approve.
type OpType string

// The operation types hitl knows; any other name is a custom type.
const (
	OpFileDelete OpType = "file_delete"
	OpFileWrite  OpType = "file_write"
	OpFileRead   OpType = "file_read"
	OpShell      OpType = "shell"
	OpAPICall    OpType = "api_call"
	OpSpawnAgent OpType = "spawn_agent"
)

// Risk is how much an operation can hurt.
type Risk string

const (
	RiskLow      Risk = "low"
	RiskMedium   Risk = "medium"
	RiskHigh     Risk = "high"
	RiskCritical Risk = "critical"
)

var risks = []Risk{RiskLow, RiskMedium, RiskHigh, RiskCritical}

// Effect is what a policy decides.
type Effect string

const (
	EffectAsk   Effect = "ask"
	EffectAllow Effect = "allow"
	EffectDeny  Effect = "deny"
)

// Operation is what an agent asks to do. Agent is the principal that asks
// (from its token), never from the request body.
type Operation struct {
	Type        OpType `json:"opType"`
	Description string `json:"operation"`
	Context     string `json:"context,omitempty"`
	Risk        Risk   `json:"risk,omitempty"`
	Resource    string `json:"resource,omitempty"`
	Agent       string `json:"agent,omitempty"`
	// Prompted: the agent was about to ask its own person (Claude Code's
	// PermissionRequest, --permission-prompt-tool). Only a rule a person
	// wrote or taught allows it then, never the default policy.
	Prompted bool `json:"prompted,omitempty"`
	// Home is the agent's home directory, sent by the edge that runs on
	// the agent's machine (the hooks, hitl gate): ~ in a path is expanded
	// with it. Without it, a path under ~ is never allowed by a rule.
	Home string `json:"home,omitempty"`
	// Paths are the symlinks of a command line's files resolved on the
	// agent's machine (by the same edges): a path as the policy reads it
	// (cleaned, ~ expanded) to the path it leads to. The decision uses
	// the path a file really is.
	Paths map[string]string `json:"paths,omitempty"`
	// Cwd is the agent's working directory, sent by the same edges: a
	// relative path is placed in it (and in every directory a cd of the
	// line moves to); without it, a relative path that climbs out (..)
	// is never allowed. A write outside it is labelled as such (Risks).
	Cwd string `json:"cwd,omitempty"`
	// Recursive: a file operation reads everything beneath Resource (Claude
	// Code's Grep and Glob): every rule about a path beneath it applies.
	Recursive bool `json:"recursive,omitempty"`
	// FoldCase: the agent's filesystem folds case (macOS), as its edge
	// says; rules about files then match without case.
	FoldCase bool `json:"foldCase,omitempty"`
	// GitConfig is what the same edges found git would run beyond the
	// line's words, in the repositories its git commands run in: each
	// configuration entry for which GitConfigRuns holds, as
	// "KEY=VALUE (ORIGIN)", and the GitEnvRuns variables set. Those git
	// commands are then not understood.
	GitConfig []string `json:"gitConfig,omitempty"`
	// Hashes are the sha256 (hex) of each file a command line runs that
	// the agent may change (CommandLine.RunsFiles), by path, or
	// FileAbsent, sent by the same edges: a learned rule for the line is
	// bound to them.
	Hashes map[string]string `json:"hashes,omitempty"`
	// Diffs are the file changes of a file operation, per file, as the
	// person sees them (FileDiff); the policy decides by Resource.
	Diffs []FileDiff `json:"diffs,omitempty"`
	// NoEdit: the agent cannot run the operation with other input (a
	// framework that runs a tool only with the model's input), so people
	// approve or deny it as it is; no edit is offered or taken.
	NoEdit bool `json:"noEdit,omitempty"`
	// Content is the new text of a file change, as a person may edit it
	// before approving (Claude Code's Write content, Edit's new_string,
	// MultiEdit's edits as JSON); empty when the change has none a person
	// can edit (or it is longer than MaxContentLen). An edited content
	// is not approved on the spot: the agent's side shows its diff against
	// the file (at the edited path) and asks again.
	Content string `json:"content,omitempty"`
}

// MaxContentLen bounds an operation's editable Content (and its edit).
const MaxContentLen = 64 << 10

// Limits on an operation an agent sends. Its description becomes a
// question's text and its context, resource and diff paths are shown as a
// question's context, so they are bounded as those are (hitl.MaxQuestionLen
// and hitl.MaxContextLen; the root's TestOperationLimits holds them equal).
const (
	MaxDescriptionLen = 20000
	MaxFieldLen       = 4000
)

var sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

var opTypePattern = regexp.MustCompile(`^[a-z][a-z0-9_.:-]{0,63}$`)

// ValidateOperation checks an operation an agent sent.
func ValidateOperation(o *Operation) error {
	switch {
	case !opTypePattern.MatchString(string(o.Type)):
		return fault.Errorf(fault.EINVALID, "opType %q is invalid: use file_delete, file_write, file_read, shell, api_call, spawn_agent or a lowercase name of your own", o.Type)
	case strings.TrimSpace(o.Description) == "":
		return fault.Errorf(fault.EINVALID, "operation is required: say what the agent wants to do")
	case len(o.Description) > MaxDescriptionLen || len(o.Context) > MaxFieldLen || len(o.Resource) > MaxFieldLen:
		return fault.Errorf(fault.EINVALID, "operation, context or resource is too long")
	case o.Home != "" && (!strings.HasPrefix(o.Home, "/") || len(o.Home) > 4096 || strings.ContainsAny(o.Home, "\x00\n")):
		return fault.Errorf(fault.EINVALID, "home %q is invalid: send the agent's home directory as an absolute path", o.Home)
	case o.Cwd != "" && (!strings.HasPrefix(o.Cwd, "/") || len(o.Cwd) > 4096 || strings.ContainsAny(o.Cwd, "\x00\n")):
		return fault.Errorf(fault.EINVALID, "cwd %q is invalid: send the agent's working directory as an absolute path", o.Cwd)
	case len(o.Content) > MaxContentLen:
		return fault.Errorf(fault.EINVALID, "content is %d bytes: send at most %d (or none: the diff shows it)", len(o.Content), MaxContentLen)
	case o.Content != "" && o.Type != OpFileWrite:
		return fault.Errorf(fault.EINVALID, "content is the new text of a file change: send it with opType file_write only")
	case len(o.Hashes) > 64:
		return fault.Errorf(fault.EINVALID, "hashes has %d entries: send at most 64", len(o.Hashes))
	case len(o.GitConfig) > 64:
		return fault.Errorf(fault.EINVALID, "gitConfig has %d entries: send at most 64", len(o.GitConfig))
	case len(o.Paths) > 64:
		return fault.Errorf(fault.EINVALID, "paths has %d entries: send at most 64", len(o.Paths))
	}
	for p, h := range o.Hashes {
		if !strings.HasPrefix(p, "/") || len(p) > 4096 || h != FileAbsent && !sha256Hex.MatchString(h) {
			return fault.Errorf(fault.EINVALID, "hashes: %q -> %q is invalid: map an absolute path to the sha256 of its content (64 hex digits) or %q", p, h, FileAbsent)
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

// Editable reports whether a person may edit the operation's input before
// approving it (a command, a path, a URL).
//
// Any operation type with a resource is editable (a framework tool's own
// type carries its exact input as the resource), except spawn_agent,
// whose resource names which agent to start (Claude Code's
// subagent_type), not an input: editing it would start another agent
// than the one the person was shown, so it is approved or denied as is.
func (o *Operation) Editable() bool {
	return o.Resource != "" && o.Type != OpSpawnAgent && !o.NoEdit
}

// ContentEditable reports whether a person may edit the new text of the
// operation's file change (Content) before approving it.
func (o *Operation) ContentEditable() bool {
	return o.Editable() && o.Type == OpFileWrite && o.Content != ""
}

// Rule is one configured rule. Match fields are optional (empty
// matches all): OpType, Risk (one level or several), Resource (a glob: *
// matches any run of characters, ? one; for shell commands it is matched
// against each simple command of the line, and a pattern without * or ?
// is a prefix on a word boundary) and Agent (the token's name). Approvers
// (Slack users, user groups, token names) and Quorum (distinct people
// needed) apply when the effect is ask.
type Rule struct {
	Name      string   `json:"name"`
	OpType    OpType   `json:"opType,omitempty"`
	Risk      []Risk   `json:"risk,omitempty"`
	Resource  string   `json:"resource,omitempty"`
	Agent     string   `json:"agent,omitempty"`
	Effect    Effect   `json:"effect"`
	Approvers []string `json:"approvers,omitempty"`
	Quorum    int      `json:"quorum,omitempty"`
	// ReminderPolicy is the rule's reminders and escalation (effect ask):
	// each key it sets wins over the question type's.
	ReminderPolicy
}

// Policy is the configured policy: rules (first match wins), then the
// default. Learned rules are records of their own (LearnedRule).
type Policy struct {
	Rules []Rule `json:"rules"`
	// Default is the default policy (docs/policies.md), by operation type (read only).
	Default map[OpType]Effect `json:"default"`
}

// DefaultPolicy is the default policy (docs/policies.md): file deletions and shell commands
// ask; API calls, file reads and agent spawning are allowed; file writes
// and custom operation types ask (fail safe).
func DefaultPolicy() map[OpType]Effect {
	return map[OpType]Effect{OpFileDelete: EffectAsk, OpShell: EffectAsk, OpAPICall: EffectAllow,
		OpFileRead: EffectAllow, OpSpawnAgent: EffectAllow, OpFileWrite: EffectAsk}
}

// RuleMatches reports whether r applies to op. For a shell operation op is
// one simple command of the line (its canonical text as Resource).
func RuleMatches(r Rule, op Operation) bool {
	if r.OpType != "" && r.OpType != op.Type {
		return false
	}
	if len(r.Risk) > 0 && !slices.Contains(r.Risk, op.Risk) {
		return false
	}
	if r.Agent != "" && r.Agent != op.Agent && "api:"+r.Agent != op.Agent && !(auth.IsLocal(r.Agent) && auth.IsLocal(op.Agent)) {
		return false // (a tokenless server's local person is one agent)
	}
	return r.Resource == "" || matchResource(r.Resource, op.Resource, op.Type == OpShell)
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
func ValidatePolicy(p Policy) error {
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
		case r.Effect != EffectAsk && r.Effect != EffectAllow && r.Effect != EffectDeny:
			return fault.Errorf(fault.EINVALID, "%s: effect %q is invalid: use ask, allow or deny", at, r.Effect)
		case r.OpType != "" && !opTypePattern.MatchString(string(r.OpType)):
			return fault.Errorf(fault.EINVALID, "%s: opType %q is invalid", at, r.OpType)
		case r.Quorum < 0 || r.Quorum > 10:
			return fault.Errorf(fault.EINVALID, "%s: quorum must be from 1 to 10, got %d", at, r.Quorum)
		case r.Quorum > 1 && len(r.Approvers) > 0 && r.Quorum > len(r.Approvers) && !hasGroup(r.Approvers):
			return fault.Errorf(fault.EINVALID, "%s: quorum %d needs at least as many approvers, got %d", at, r.Quorum, len(r.Approvers))
		case r.Effect != EffectAsk && (len(r.Approvers) > 0 || r.Quorum > 1):
			return fault.Errorf(fault.EINVALID, "%s: approvers and quorum only apply to effect ask", at)
		}
		if !r.ReminderPolicy.IsZero() && r.Effect != EffectAsk {
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

// State is the configured policy as stored: the rules (from the
// file, or from the last PUT) and the hash of the file's rules they were
// taken from, so that a PUT beats the file until the file changes. Learned
// rules are records of their own (LearnedRule).
type State struct {
	Rules     []Rule     `json:"rules"`
	FileHash  string     `json:"fileHash"`
	UpdatedBy string     `json:"updatedBy,omitempty"`
	UpdatedAt *time.Time `json:"updatedAt,omitempty"`
}

// AddsFriction reports whether r adds friction: it denies, or it asks named
// approvers or more than one person.
func (r Rule) AddsFriction() bool {
	return r.Effect == EffectDeny || r.Effect == EffectAsk && (len(r.Approvers) > 0 || r.Quorum > 1)
}
