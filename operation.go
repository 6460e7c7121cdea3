package hitl

import (
	"bytes"
	"encoding/json"
	"strings"
)

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
	// configuration entry for which policy.GitConfigRuns holds, as
	// "KEY=VALUE (ORIGIN)", and the policy.GitEnvRuns variables set. Those git
	// commands are then not understood.
	GitConfig []string `json:"gitConfig,omitempty"`
	// Hashes are the sha256 (hex) of each file a command line runs that
	// the agent may change (policy.CommandLine.RunsFiles), by path, or
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

// DiffStat is the operation's lines added and removed over all its files.
func (o *Operation) DiffStat() (added, removed int) {
	for _, d := range o.Diffs {
		added += d.Added
		removed += d.Removed
	}
	return added, removed
}

// Input is the operation's resource as the fields of a tool's input, when
// it is a JSON object; nil otherwise (a command, a path, a URL).
func (o *Operation) Input() []InputField {
	r := strings.TrimSpace(o.Resource)
	if len(r) < 2 || r[0] != '{' {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(r))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var out []InputField
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		key, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil
		}
		f := InputField{Key: key}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			f.Value, f.Multiline = s, strings.Contains(s, "\n")
		} else {
			var b bytes.Buffer
			if json.Compact(&b, raw) != nil {
				return nil
			}
			f.Value = b.String()
		}
		if len(out) < maxInputFields {
			out = append(out, f)
		}
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') || dec.More() {
		return nil
	}
	return out
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

// MaxContentLen bounds an operation's editable Content (and its edit).
const MaxContentLen = 64 << 10

// Limits on an operation an agent sends. Its description becomes a
// question's text and its context, resource and diff paths are shown as a
// question's context, so they are bounded as a question's text and
// context are (the root's TestOperationLimits holds them equal).
const (
	MaxDescriptionLen = 20000
	MaxFieldLen       = 4000
)

// FileAbsent is the hash an edge sends for a file that is not there.
const FileAbsent = "absent"

// A framework tool's input is sent as its resource, a JSON object
// ({"path": "notes.md", "content": "line 1\nline 2"}): people read it as
// its fields, in the order the agent sent them, each string as written
// (its line breaks kept), every other value as compact JSON.

// InputField is one field of a tool's input.
type InputField struct {
	Key   string
	Value string
	// Multiline: a string of several lines, shown as a block.
	Multiline bool
}

// maxInputFields bounds the fields shown; the rest stay in the resource.
const maxInputFields = 50
