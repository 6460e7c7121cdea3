package main

import (
	"context"
	"fmt"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/steer"
)

// Codex CLI's PermissionRequest hook: input tool_name (Bash for shell
// commands and network access, apply_patch, mcp__…) and tool_input
// (command, description); output decision.behavior allow | deny with a
// message. Codex refuses updatedInput (it fails closed), so an approval
// with an edited command is a deny whose message gives the command to run
// instead. No output leaves the decision to Codex's own prompt.

type codexDecision struct {
	Behavior string `json:"behavior"`
	Message  string `json:"message,omitempty"`
}

type codexPermissionRequest struct {
	HookEventName string        `json:"hookEventName"`
	Decision      codexDecision `json:"decision"`
}

func (h *hook) codex(ctx context.Context, step steer.HookStep) error {
	if out, ok := h.steered(step); ok {
		return h.print(out)
	}
	if h.in.HookEventName != "PermissionRequest" {
		return nil // Codex's PermissionRequest decides tool calls; the other events report
	}
	v, err := h.decide(ctx)
	var d codexDecision
	switch {
	case err != nil:
		fmt.Fprintf(h.e.stderr, "hitl hook: %s\n", h.why(err))
		return nil
	case v.Allowed && v.Edited != "":
		d = codexDecision{Behavior: "deny", Message: fmt.Sprintf("%s approved this only with an edit. Run this instead: %s", v.By, v.Edited)}
		if v.Message != "" {
			d.Message += " (" + v.Message + ")"
		}
	case v.Allowed:
		d = codexDecision{Behavior: "allow"}
	case v.Outcome == hitl.OutcomeDenied || v.Outcome == hitl.OutcomeReplied:
		d = codexDecision{Behavior: "deny", Message: denial(v)}
	default:
		return nil // nobody decided: Codex asks
	}
	return h.print(hookOutput{codexPermissionRequest{HookEventName: "PermissionRequest", Decision: d}})
}
