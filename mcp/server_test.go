package mcp

import (
	"encoding/json"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPermissionResult(t *testing.T) {
	text := func(p permission) string {
		r := p.result()
		require.Len(t, r.Content, 1)
		b, err := json.Marshal(r.Content[0])
		require.NoError(t, err)
		var c struct{ Text string }
		require.NoError(t, json.Unmarshal(b, &c))
		return c.Text
	}
	t.Run("allow always carries updatedInput, an object even when empty", func(t *testing.T) {
		assert.JSONEq(t, `{"behavior":"allow","updatedInput":{}}`, text(permission{Behavior: "allow"}))
		assert.JSONEq(t, `{"behavior":"allow","updatedInput":{"command":"ls"}}`,
			text(permission{Behavior: "allow", UpdatedInput: map[string]any{"command": "ls"}}))
	})
	t.Run("deny carries the message and no updatedInput", func(t *testing.T) {
		assert.JSONEq(t, `{"behavior":"deny","message":"no"}`, text(deny("no")))
	})
}

func TestKey(t *testing.T) {
	s := &Server{opts: Options{Run: "r1"}}
	a := s.keyOf("ask_human", map[string]any{"prompt": "p", "options": []any{"a", "b"}})
	t.Run("the same arguments in any order: the same key", func(t *testing.T) {
		var args map[string]any
		require.NoError(t, json.Unmarshal([]byte(`{"options":["a","b"],"prompt":"p"}`), &args))
		assert.Equal(t, a, s.keyOf("ask_human", args))
	})
	t.Run("another run, tool or argument: another key", func(t *testing.T) {
		assert.NotEqual(t, a, (&Server{opts: Options{Run: "r2"}}).keyOf("ask_human", map[string]any{"prompt": "p", "options": []any{"a", "b"}}))
		assert.NotEqual(t, a, s.keyOf("request_approval", map[string]any{"prompt": "p", "options": []any{"a", "b"}}))
		assert.NotEqual(t, a, s.keyOf("ask_human", map[string]any{"prompt": "q", "options": []any{"a", "b"}}))
		assert.LessOrEqual(t, len(a), hitl.MaxKeyLen)
	})
}

func TestNewRegistersTools(t *testing.T) {
	assert.NotPanics(t, func() { New(Options{}) }, "the input schemas are valid")
}
