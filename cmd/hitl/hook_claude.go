package main

import (
	"context"
	"fmt"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/hook"
	"github.com/hitlbot/hitl/steer"
)

// Claude Code's hook output (hookSpecificOutput). PreToolUse decides with
// permissionDecision allow | deny | ask (ask: Claude Code's own prompt,
// showing the reason) and may replace the tool input (updatedInput, with
// allow). PermissionRequest answers the prompt Claude Code is about to
// show with decision.behavior allow (optionally updatedInput) or deny
// (message); no decision shows the prompt.

type claudePreToolUse struct {
	HookEventName            string         `json:"hookEventName"`
	PermissionDecision       string         `json:"permissionDecision"`
	PermissionDecisionReason string         `json:"permissionDecisionReason,omitempty"`
	UpdatedInput             map[string]any `json:"updatedInput,omitempty"`
	// AdditionalContext is what Claude (the model) reads with the call:
	// with an allow, the reason goes to the person only, so a person's
	// edit of the call is told here.
	AdditionalContext string `json:"additionalContext,omitempty"`
}

type claudePermissionDecision struct {
	Behavior     string         `json:"behavior"`
	UpdatedInput map[string]any `json:"updatedInput,omitempty"`
	Message      string         `json:"message,omitempty"`
}

type claudePermissionRequest struct {
	HookEventName string                   `json:"hookEventName"`
	Decision      claudePermissionDecision `json:"decision"`
}

type hookOutput struct {
	HookSpecificOutput any `json:"hookSpecificOutput"`
}

func (h *hookCall) claude(ctx context.Context, step steer.HookStep) error {
	if h.in.HookEventName == "SessionStart" {
		return h.claudeSessionStart(step) // claude_version.go
	}
	note := ""
	if h.in.HookEventName == string(steer.HookPostToolUse) {
		note = h.takeEditNote() // hook_editnote.go
	}
	if out, ok := h.steered(step); ok {
		if c, isContext := out.HookSpecificOutput.(contextOutput); isContext && note != "" {
			c.AdditionalContext = note + "\n\n" + c.AdditionalContext
			out.HookSpecificOutput = c
		}
		return h.print(out)
	}
	switch h.in.HookEventName {
	case "PostToolUse":
		if note == "" {
			return nil
		}
		return h.print(hookOut{HookSpecificOutput: contextOutput{HookEventName: "PostToolUse", AdditionalContext: note}})
	case "PreToolUse":
		if !h.decideTools && h.in.ToolName != hook.AskUserQuestionTool {
			return nil // Claude Code's own permissions decide (and its PermissionRequest hook)
		}
		out, ok := h.preToolUse(ctx)
		if !ok {
			return nil // only the default policy allows: Claude Code's own permissions apply
		}
		return h.print(hookOutput{out})
	case "PermissionRequest":
		d, ok := h.permissionRequest(ctx)
		if !ok {
			return nil // no decision: Claude Code shows its prompt
		}
		return h.print(hookOutput{claudePermissionRequest{HookEventName: "PermissionRequest", Decision: d}})
	}
	return nil // a session event with nothing to say
}

// preToolUse decides a tool call before it runs, in every permission mode
// (default, acceptEdits, auto, bypassPermissions: permission_mode never
// changes it): a rule a person wrote or taught allows, a deny denies, an
// ask asks people in hitl; false when only the default policy allows, so
// that Claude Code's own permissions apply. AskUserQuestion is answered
// through updatedInput.answers.
func (h *hookCall) preToolUse(ctx context.Context) (claudePreToolUse, bool) {
	out := claudePreToolUse{HookEventName: "PreToolUse"}
	ask := func(reason string) (claudePreToolUse, bool) {
		out.PermissionDecision, out.PermissionDecisionReason = "ask", reason
		return out, true
	}
	if h.in.ToolName == hook.AskUserQuestionTool {
		updated, err := h.answer(ctx)
		if err != nil {
			return ask(h.why(err))
		}
		out.PermissionDecision, out.PermissionDecisionReason, out.UpdatedInput = "allow", "Answered in hitl", updated
		return out, true
	}
	v, err := h.decide(ctx)
	switch {
	case err != nil:
		return ask(h.why(err))
	case onlyDefault(v) && h.edited == nil:
		return out, false
	case !v.Allowed && (v.Outcome == hitl.OutcomeDenied || v.Outcome == hitl.OutcomeReplied):
		out.PermissionDecision, out.PermissionDecisionReason = "deny", denial(v)
		return out, true
	case !v.Allowed:
		return ask(fmt.Sprintf("Nobody decided in hitl (%s): asking here instead", v.Outcome))
	}
	out.PermissionDecision, out.PermissionDecisionReason = "allow", h.approval(v)
	updated, ok := h.updatedInput(v)
	if !ok {
		return ask(fmt.Sprintf("%s approved in hitl only with an edit that cannot be applied to %s (%s): asking here instead", v.By, h.in.ToolName, v.Edited))
	}
	out.UpdatedInput, out.AdditionalContext = updated, h.toldOfEdit(v, updated)
	if updated, why, ok := h.enforced(ctx, v, out.UpdatedInput); !ok {
		return ask(why)
	} else if updated != nil {
		out.UpdatedInput = updated
		out.PermissionDecisionReason += "; it runs under its grant: " + v.Decision.Grant.Text()
	}
	return out, true
}

// permissionRequest answers Claude Code's permission prompt; false leaves
// it to the prompt.
func (h *hookCall) permissionRequest(ctx context.Context) (claudePermissionDecision, bool) {
	if h.in.ToolName == hook.AskUserQuestionTool {
		updated, err := h.answer(ctx)
		if err != nil {
			fmt.Fprintf(h.e.stderr, "hitl hook: %s\n", h.why(err))
			return claudePermissionDecision{}, false
		}
		return claudePermissionDecision{Behavior: "allow", UpdatedInput: updated}, true
	}
	v, err := h.decide(ctx)
	switch {
	case err != nil:
		fmt.Fprintf(h.e.stderr, "hitl hook: %s\n", h.why(err))
		return claudePermissionDecision{}, false
	case !v.Allowed && (v.Outcome == hitl.OutcomeDenied || v.Outcome == hitl.OutcomeReplied):
		return claudePermissionDecision{Behavior: "deny", Message: denial(v)}, true
	case !v.Allowed:
		return claudePermissionDecision{}, false
	}
	d := claudePermissionDecision{Behavior: "allow"}
	updated, ok := h.updatedInput(v)
	if !ok {
		return claudePermissionDecision{}, false
	}
	d.UpdatedInput = updated
	note := h.toldOfEdit(v, updated)
	if updated, why, ok := h.enforced(ctx, v, d.UpdatedInput); !ok {
		fmt.Fprintf(h.e.stderr, "hitl hook: %s\n", why)
		return claudePermissionDecision{}, false
	} else if updated != nil {
		d.UpdatedInput = updated
	}
	if note != "" {
		// No field of this answer reaches the model: the call's
		// PostToolUse tells it (hook_editnote.go).
		in := d.UpdatedInput
		if in == nil {
			in = h.in.ToolInput
		}
		h.leaveEditNote(in, note)
	}
	return d, true
}

// denial is the reason given to the agent for a denial; for a reply it
// is the person's text, which the agent reads as guidance.
func denial(v client.GateResult) string {
	if v.Outcome == hitl.OutcomeReplied {
		return fmt.Sprintf("Not approved: %s replied in hitl instead: %s", v.By, v.Message)
	}
	if v.By == "" {
		return "Denied by hitl: " + v.Message
	}
	msg := "Denied by " + v.By + " in hitl"
	if v.Message != "" {
		msg += ": " + v.Message
	}
	return msg
}

// approval is the reason given with an allow (shown to the person at
// the terminal).
func (h *hookCall) approval(v client.GateResult) string {
	if v.By == "" && h.edited == nil {
		return "Allowed by hitl policy rule " + v.Rule
	}
	msg := "Approved by " + v.By + " in hitl"
	if v.By == "" {
		msg = "Allowed by hitl policy rule " + v.Rule
	}
	if v.Edited != "" {
		msg += ", edited to: " + v.Edited
	}
	for _, e := range h.edits {
		msg += fmt.Sprintf(", after %s's edit (question %s): %s %s", e.by, e.question, e.to.Tool, e.path())
	}
	if v.Message != "" {
		msg += ": " + v.Message
	}
	return msg
}
