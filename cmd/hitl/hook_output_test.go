package main

import (
	"encoding/json"
	"testing"

	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
)

// TestHookSteeredOutput: what each step prints for each event, in the
// fields Claude Code and Codex act on. A step that leaves the call to its
// own business prints nothing here.
func TestHookSteeredOutput(t *testing.T) {
	halt := steer.HookStep{Action: steer.HookHalt, Reason: "cancelled by slack:U1 in hitl"}
	refuse := steer.HookStep{Action: steer.HookRefuse, Reason: "paused by slack:U1 in hitl — waiting"}
	instruct := steer.HookStep{Action: steer.HookInstruct, Instruction: "fix the test"}
	keepGoing := steer.HookStep{Action: steer.HookKeepGoing, Instruction: "fix the test"}
	const ctxText = "A person steering this session through hitl redirects you. Follow this instruction now, before anything else you planned: fix the test"
	for _, tc := range []struct {
		name  string
		event string
		step  steer.HookStep
		want  string // "" prints nothing
	}{
		{"halt: a tool call is denied and the agent stopped", "PreToolUse", halt,
			`{"continue":false,"stopReason":"cancelled by slack:U1 in hitl","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"cancelled by slack:U1 in hitl"}}`},
		{"halt: a permission prompt is denied and the agent stopped", "PermissionRequest", halt,
			`{"continue":false,"stopReason":"cancelled by slack:U1 in hitl","hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"cancelled by slack:U1 in hitl"}}}`},
		{"halt: any other event stops the agent", "Stop", halt, `{"continue":false,"stopReason":"cancelled by slack:U1 in hitl"}`},
		{"refuse: a tool call is denied", "PreToolUse", refuse,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"paused by slack:U1 in hitl — waiting"}}`},
		{"refuse: a permission prompt is denied", "PermissionRequest", refuse,
			`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"paused by slack:U1 in hitl — waiting"}}}`},
		{"refuse: a prompt is blocked", "UserPromptSubmit", refuse, `{"decision":"block","reason":"paused by slack:U1 in hitl — waiting"}`},
		{"refuse: after a tool call, blocked with the reason", "PostToolUse", refuse, `{"decision":"block","reason":"paused by slack:U1 in hitl — waiting"}`},
		{"instruct: as context after a tool call", "PostToolUse", instruct,
			`{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"` + ctxText + `"}}`},
		{"instruct: as context with a prompt", "UserPromptSubmit", instruct,
			`{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"` + ctxText + `"}}`},
		{"keep going: Stop is blocked with the instruction", "Stop", keepGoing, `{"decision":"block","reason":"` + ctxText + `"}`},
		{"proceed: nothing", "PostToolUse", steer.HookStep{Action: steer.HookProceed}, ""},
		{"end: nothing", "SessionEnd", steer.HookStep{Action: steer.HookEnd}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &hookCall{in: hookInput{HookEventName: tc.event}}
			out, ok := h.steered(tc.step)
			if tc.want == "" {
				assert.False(t, ok)
				return
			}
			assert.True(t, ok)
			b, err := json.Marshal(out)
			assert.NoError(t, err)
			assert.JSONEq(t, tc.want, string(b))
		})
	}
}
