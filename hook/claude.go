package hook

import (
	"cmp"
	"encoding/json"
	"maps"
	"strings"
	"unicode/utf8"

	"github.com/hitlbot/hitl"
)

// Claude Code's tools, as its hooks (tool_name, tool_input) and its
// --permission-prompt-tool (tool_name, input) name them, mapped to the
// policy's operations (docs/protocol.md#approvals) so that the approval policy decides them. Codex's
// PermissionRequest hook names its tools the same way (Bash, apply_patch,
// mcp__…).

// AskUserQuestionTool is Claude Code's tool for asking the user questions
// with options; hitl answers it (see AskUserQuestions).
const AskUserQuestionTool = "AskUserQuestion"

// ToolCall is a tool call an agent wants to make.
type ToolCall struct {
	Tool  string
	Input map[string]any
	// Approval is the approval_context Codex releases that sent one give
	// with a PermissionRequest (nil otherwise).
	Approval *ApprovalContext
}

// ApprovalContext is Codex's approval_context: why the model asks
// (justification) and what sandbox permissions it asks for.
type ApprovalContext struct {
	Justification      string `json:"justification"`
	SandboxPermissions string `json:"sandbox_permissions"`
}

// LeaveSandbox is the sandbox_permissions value of a command Codex asks
// to run outside its sandbox.
const LeaveSandbox = "require_escalated"

// justification is why the agent makes the call, wherever its release
// puts it: tool_input.description (Claude Code, Codex), the shell tool's
// own justification argument, or approval_context.justification.
func (t ToolCall) justification() string {
	for _, k := range []string{"description", "justification"} {
		if d, _ := t.Input[k].(string); strings.TrimSpace(d) != "" {
			return d
		}
	}
	if t.Approval != nil {
		return t.Approval.Justification
	}
	return ""
}

// sandbox is the sandbox permissions the call asks for, "" for none.
func (t ToolCall) sandbox() string {
	if p, _ := t.Input["sandbox_permissions"].(string); p != "" {
		return p
	}
	if t.Approval != nil {
		return t.Approval.SandboxPermissions
	}
	return ""
}

// editField is the input field that holds a tool's operation resource: what a
// person may edit before approving. Empty: the resource is not editable.
func (t ToolCall) editField() string {
	switch t.Tool {
	case "Bash":
		return "command"
	case "Write", "Edit", "MultiEdit", "Read":
		return "file_path"
	case "NotebookEdit":
		return "notebook_path"
	case "Grep", "Glob":
		return "path"
	case "WebFetch":
		return "url"
	case "WebSearch":
		return "query"
	}
	return ""
}

// Operation maps the call to the operation the policy decides: Bash is a
// shell command, Write/Edit/MultiEdit/NotebookEdit write a file,
// Read/Grep/Glob read files, WebFetch/WebSearch and MCP tools (mcp__…) are
// API calls, Task spawns an agent; any other tool is a custom operation
// named after it. context is shown to people with it.
func (t ToolCall) Operation(context string) hitl.Operation {
	op := hitl.Operation{Type: hitl.OpType("custom"), Context: context}
	str := func(k string) string { s, _ := t.Input[k].(string); return s }
	switch t.Tool {
	case "Bash":
		op.Type, op.Resource = hitl.OpShell, str("command")
		op.Description = "Run " + op.Resource
		if d := t.justification(); d != "" {
			op.Description = d + ": " + op.Resource
		}
		switch sb := t.sandbox(); sb {
		case "", "use_default":
		case LeaveSandbox:
			op.Description = "Asks to leave the sandbox: " + op.Description
			op.Context = joinNonEmpty(context, "The agent asks to run this outside its sandbox (sandbox_permissions: "+LeaveSandbox+")")
		default:
			op.Context = joinNonEmpty(context, "The agent asks for sandbox permissions: "+sb)
		}
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
		op.Type, op.Resource = hitl.OpFileWrite, str(t.editField())
		op.Description = t.Tool + " " + op.Resource
		op.Context = joinNonEmpty(context, preview(t.Input))
		if c, ok := t.content(); ok && len(c) <= hitl.MaxContentLen {
			op.Content = c
		}
	case "Read", "Grep", "Glob":
		op.Type = hitl.OpFileRead
		op.Resource = str(t.editField())
		if t.Tool == "Read" {
			op.Description = "Read " + op.Resource
		} else {
			// Grep and Glob read everything beneath their path: every rule
			// about a path beneath it applies
			op.Recursive = true
			op.Description = t.Tool + " " + str("pattern") + " in " + cmp.Or(op.Resource, "the working directory")
		}
	case "WebFetch", "WebSearch":
		op.Type, op.Resource = hitl.OpAPICall, str(t.editField())
		op.Description = t.Tool + " " + op.Resource
	case "apply_patch": // Codex's file edits
		op.Type, op.Description = hitl.OpFileWrite, "Apply a patch"
		op.Context = joinNonEmpty(context, preview(t.Input))
	case "Task", "Agent":
		op.Type, op.Resource = hitl.OpSpawnAgent, str("subagent_type")
		op.Description = "Start a subagent: " + cmp.Or(str("description"), str("prompt"))
	default:
		if strings.HasPrefix(t.Tool, "mcp__") {
			op.Type, op.Resource = hitl.OpAPICall, t.Tool
			op.Description = "Call the MCP tool " + t.Tool
			op.Context = joinNonEmpty(context, preview(t.Input))
			break
		}
		op.Description = "Use the tool " + t.Tool
		op.Context = joinNonEmpty(context, preview(t.Input))
	}
	return op
}

// Edited returns the input with the person's edit of the resource put in
// its place, and false when the tool has no editable field (an MCP tool's
// name, a subagent): the edit cannot be applied.
func (t ToolCall) Edited(edited string) (map[string]any, bool) {
	return t.EditedInput(edited, "")
}

// EditedInput returns the input with a person's edits put in place: the
// resource (a command, a path; "" leaves it) and the new text of a file
// change (Write's content, Edit's new_string, MultiEdit's edits as JSON;
// "" leaves it). False when an edit cannot be applied to the tool: it has
// no such field, or the edited MultiEdit edits are not a JSON list of
// edits.
func (t ToolCall) EditedInput(resource, content string) (map[string]any, bool) {
	f := t.editField()
	if f == "" && resource != "" {
		return nil, false
	}
	out := maps.Clone(t.Input)
	if out == nil {
		out = map[string]any{}
	}
	if resource != "" {
		out[f] = resource
	}
	if content == "" {
		return out, true
	}
	switch t.Tool {
	case "Write":
		out["content"] = content
	case "Edit":
		out["new_string"] = content
	case "MultiEdit":
		var edits []map[string]any
		if err := json.Unmarshal([]byte(content), &edits); err != nil || len(edits) == 0 {
			return nil, false
		}
		list := make([]any, len(edits))
		for i, e := range edits {
			if _, ok := e["old_string"].(string); !ok {
				return nil, false
			}
			if _, ok := e["new_string"].(string); !ok {
				return nil, false
			}
			list[i] = e
		}
		out["edits"] = list
	default:
		return nil, false
	}
	return out, true
}

// ChangesFiles reports whether the call changes files, which people
// approve by their diffs (Diffs).
func (t ToolCall) ChangesFiles() bool {
	switch t.Tool {
	case "Write", "Edit", "MultiEdit", "NotebookEdit", "apply_patch":
		return true
	}
	return false
}

// content is the new text of a file change a person may edit: Write's
// content, Edit's new_string, MultiEdit's edits as indented JSON; false
// for other tools.
func (t ToolCall) content() (string, bool) {
	switch t.Tool {
	case "Write":
		s, ok := t.Input["content"].(string)
		return s, ok
	case "Edit":
		s, ok := t.Input["new_string"].(string)
		return s, ok
	case "MultiEdit":
		list, ok := t.Input["edits"].([]any)
		if !ok || len(list) == 0 {
			return "", false
		}
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		err := enc.Encode(list)
		return strings.TrimSuffix(b.String(), "\n"), err == nil
	}
	return "", false
}

// previewLen bounds the tool input shown to people with an operation.
const previewLen = 1500

// preview is the tool input as compact JSON, cut to previewLen with a
// visible marker.
func preview(input map[string]any) string {
	if len(input) == 0 {
		return ""
	}
	b, err := json.Marshal(input)
	if err != nil {
		return ""
	}
	return "Input: " + cut(string(b), previewLen)
}

func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + " …[cut]"
}

func joinNonEmpty(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "\n")
}
