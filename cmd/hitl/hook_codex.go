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

func (h *hookCall) codex(ctx context.Context, step steer.HookStep) error {
	if out, ok := h.steered(step); ok {
		return h.print(out)
	}
	if h.in.HookEventName == "PreToolUse" && h.decideTools {
		return h.codexPreToolUse(ctx)
	}
	if h.in.HookEventName != "PermissionRequest" {
		return nil // the other events report
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

// codexPreToolUse decides a tool call before it runs, whatever Codex's
// approval mode (in full-auto Codex sends no PermissionRequest). Codex
// honours only a deny at PreToolUse: the policy's deny, a person's denial
// or reply, and an approval only with an edit (run the edit instead) deny
// the call; a rule's or a person's allow, and the default policy's, print
// nothing, so the call goes on to Codex's own approval (which may ask
// again at PermissionRequest, where hitl answers by policy).
func (h *hookCall) codexPreToolUse(ctx context.Context) error {
	v, err := h.decide(ctx)
	deny := func(msg string) error {
		return h.print(hookOutput{claudePreToolUse{HookEventName: "PreToolUse", PermissionDecision: "deny", PermissionDecisionReason: msg}})
	}
	switch {
	case err != nil:
		fmt.Fprintf(h.e.stderr, "hitl hook: %s\n", h.why(err))
		return nil
	case v.Allowed && v.Edited != "":
		return deny(fmt.Sprintf("%s approved this only with an edit. Run this instead: %s", v.By, v.Edited))
	case v.Allowed:
		return nil
	case v.Outcome == hitl.OutcomeDenied || v.Outcome == hitl.OutcomeReplied:
		return deny(denial(v))
	}
	return nil // nobody decided: Codex's own approval applies
}
