package policy_test

import (
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/stretchr/testify/assert"
)

func TestOperationInput(t *testing.T) {
	for _, tc := range []struct {
		name, resource string
		want           []hitl.InputField
	}{
		{"a tool's input, in the agent's order", `{"path":"notes.md","content":"line 1\nline 2","mode":420,"tags":["a", "b"]}`, []hitl.InputField{
			{Key: "path", Value: "notes.md"}, {Key: "content", Value: "line 1\nline 2", Multiline: true}, {Key: "mode", Value: "420"}, {Key: "tags", Value: `["a","b"]`}}},
		{"an empty object", `{}`, nil},
		{"a command is no input", "ls -la", nil},
		{"a JSON array is no input", `[1,2]`, nil},
		{"two objects are no input", `{"a":1}{"b":2}`, nil},
		{"broken JSON is no input", `{"a":`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			op := hitl.Operation{Type: "write_file", Resource: tc.resource}
			assert.Equal(t, tc.want, op.Input())
		})
	}
}
