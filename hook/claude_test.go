package hook

import (
	"strings"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/policy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestToolCallOperation(t *testing.T) {
	for _, tc := range []struct {
		tool     string
		input    map[string]any
		opType   hitl.OpType
		resource string
		editable bool
	}{
		{"Bash", map[string]any{"command": "ls -la", "description": "List"}, hitl.OpShell, "ls -la", true},
		{"Write", map[string]any{"file_path": "/a/b.go", "content": "package b"}, hitl.OpFileWrite, "/a/b.go", true},
		{"Edit", map[string]any{"file_path": "/a/b.go", "old_string": "x", "new_string": "y"}, hitl.OpFileWrite, "/a/b.go", true},
		{"MultiEdit", map[string]any{"file_path": "/a/b.go", "edits": []any{}}, hitl.OpFileWrite, "/a/b.go", true},
		{"NotebookEdit", map[string]any{"notebook_path": "/a/n.ipynb", "new_source": "1"}, hitl.OpFileWrite, "/a/n.ipynb", true},
		{"Read", map[string]any{"file_path": "/a/b.go"}, hitl.OpFileRead, "/a/b.go", true},
		{"Grep", map[string]any{"pattern": "TODO", "path": "/a"}, hitl.OpFileRead, "/a", true},
		{"Glob", map[string]any{"pattern": "**/*.go"}, hitl.OpFileRead, "", true},
		{"WebFetch", map[string]any{"url": "https://x.test", "prompt": "p"}, hitl.OpAPICall, "https://x.test", true},
		{"WebSearch", map[string]any{"query": "go"}, hitl.OpAPICall, "go", true},
		{"Task", map[string]any{"description": "d", "prompt": "p", "subagent_type": "general-purpose"}, hitl.OpSpawnAgent, "general-purpose", false},
		{"mcp__github__create_issue", map[string]any{"title": "t"}, hitl.OpAPICall, "mcp__github__create_issue", false},
		{"apply_patch", map[string]any{"command": "*** Begin Patch"}, hitl.OpFileWrite, "", false},
		{"SomethingNew", map[string]any{"x": 1}, hitl.OpType("custom"), "", false},
	} {
		t.Run(tc.tool+" is "+string(tc.opType), func(t *testing.T) {
			call := ToolCall{Tool: tc.tool, Input: tc.input}
			op := call.Operation("ctx")
			assert.Equal(t, tc.opType, op.Type)
			assert.Equal(t, tc.resource, op.Resource)
			require.NoError(t, policy.ValidateOperation(&op), "a valid operation")
			edited, ok := call.Edited("EDITED")
			assert.Equal(t, tc.editable, ok)
			if ok {
				assert.Equal(t, "EDITED", edited[call.editField()])
				assert.NotEqual(t, "EDITED", tc.input[call.editField()], "the input is not changed in place")
				for k, v := range tc.input {
					if k != call.editField() {
						assert.Equal(t, v, edited[k], "the other fields are kept")
					}
				}
			}
		})
	}
	t.Run("a long input is cut with a visible marker in the context", func(t *testing.T) {
		op := ToolCall{Tool: "Write", Input: map[string]any{"file_path": "/f", "content": strings.Repeat("x", 5000)}}.Operation("")
		assert.Contains(t, op.Context, "…[cut]")
		require.NoError(t, policy.ValidateOperation(&op))
	})
}

// TestCodexJustification: Codex's justification wherever a release puts
// it, and a request to leave the sandbox said in words.
func TestCodexJustification(t *testing.T) {
	const why = "Do you want to install the dependencies?"
	for _, tc := range []struct {
		name    string
		call    ToolCall
		desc    string
		context string
	}{
		{"tool_input.description", ToolCall{Tool: "Bash", Input: map[string]any{"command": "npm ci", "description": why}},
			why + ": npm ci", ""},
		{"approval_context, in the sandbox", ToolCall{Tool: "Bash", Input: map[string]any{"command": "npm ci"},
			Approval: &ApprovalContext{Justification: why, SandboxPermissions: "use_default"}}, why + ": npm ci", ""},
		{"approval_context asking to leave the sandbox", ToolCall{Tool: "Bash", Input: map[string]any{"command": "npm ci"},
			Approval: &ApprovalContext{Justification: why, SandboxPermissions: LeaveSandbox}},
			"Asks to leave the sandbox: " + why + ": npm ci", "The agent asks to run this outside its sandbox (sandbox_permissions: require_escalated)"},
		{"the shell tool's own arguments", ToolCall{Tool: "Bash", Input: map[string]any{"command": "npm ci", "justification": why, "sandbox_permissions": LeaveSandbox}},
			"Asks to leave the sandbox: " + why + ": npm ci", "outside its sandbox"},
		{"more sandbox permissions", ToolCall{Tool: "Bash", Input: map[string]any{"command": "npm ci", "sandbox_permissions": "with_additional_permissions"}},
			"Run npm ci", "The agent asks for sandbox permissions: with_additional_permissions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			op := tc.call.Operation("")
			assert.Equal(t, tc.desc, op.Description)
			assert.Equal(t, "npm ci", op.Resource)
			if tc.context == "" {
				assert.Empty(t, op.Context)
			} else {
				assert.Contains(t, op.Context, tc.context)
			}
		})
	}
}

// TestEditedInput: a person's edits of a file change land in the field
// the tool reads them from, and an edit the tool cannot take is refused.
func TestEditedInput(t *testing.T) {
	multi := []any{map[string]any{"old_string": "a", "new_string": "b"}}
	for _, tc := range []struct {
		name              string
		call              ToolCall
		resource, content string
		want              map[string]any // nil: refused
	}{
		{"Write's content", ToolCall{Tool: "Write", Input: map[string]any{"file_path": "/w/a", "content": "x"}}, "", "y", map[string]any{"file_path": "/w/a", "content": "y"}},
		{"Write's path and content", ToolCall{Tool: "Write", Input: map[string]any{"file_path": "/w/a", "content": "x"}}, "/w/b", "y", map[string]any{"file_path": "/w/b", "content": "y"}},
		{"Edit's new text", ToolCall{Tool: "Edit", Input: map[string]any{"file_path": "/w/a", "old_string": "o", "new_string": "n"}}, "", "m", map[string]any{"file_path": "/w/a", "old_string": "o", "new_string": "m"}},
		{"MultiEdit's edits", ToolCall{Tool: "MultiEdit", Input: map[string]any{"file_path": "/w/a", "edits": multi}}, "", `[{"old_string":"a","new_string":"<c>"}]`, map[string]any{"file_path": "/w/a", "edits": []any{map[string]any{"old_string": "a", "new_string": "<c>"}}}},
		{"MultiEdit's edits not a list of edits", ToolCall{Tool: "MultiEdit", Input: map[string]any{"file_path": "/w/a", "edits": multi}}, "", `{"x":1}`, nil},
		{"MultiEdit's edit without new text", ToolCall{Tool: "MultiEdit", Input: map[string]any{"file_path": "/w/a", "edits": multi}}, "", `[{"old_string":"a"}]`, nil},
		{"a command has no content", ToolCall{Tool: "Bash", Input: map[string]any{"command": "ls"}}, "", "y", nil},
		{"an MCP tool has no editable field", ToolCall{Tool: "mcp__x__y", Input: map[string]any{"a": "b"}}, "z", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := tc.call.EditedInput(tc.resource, tc.content)
			if tc.want == nil {
				require.False(t, ok, "refused: %v", got)
				return
			}
			require.True(t, ok)
			require.Equal(t, tc.want, got)
		})
	}
	op := ToolCall{Tool: "MultiEdit", Input: map[string]any{"file_path": "/w/a", "edits": []any{map[string]any{"old_string": "a<", "new_string": "b&"}}}}.Operation("")
	require.Equal(t, "[\n  {\n    \"new_string\": \"b&\",\n    \"old_string\": \"a<\"\n  }\n]", op.Content, "MultiEdit's edits read as indented JSON, unescaped")
}
