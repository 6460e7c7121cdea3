package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/hook"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func (s *Server) requestApproval(ctx context.Context, req *sdk.CallToolRequest, in approvalInput) (*sdk.CallToolResult, ApprovalReply, error) {
	op := hitl.Operation{Type: hitl.OpType(cmp.Or(in.OpType, "custom")), Description: in.Operation, Context: in.Context,
		Risk: hitl.Risk(in.Risk), Resource: in.Resource}
	wctx, cancel, tick := s.waiting(ctx, req, "waiting for a person to approve: "+cut(in.Operation, 80))
	defer cancel()
	v, err := s.opts.Client.Gate(wctx, hitl.ApprovalRequest{Operation: op, RunID: s.opts.Run, IdempotencyKey: s.key(req)}, tick)
	switch {
	case err != nil && hook.GaveUp(wctx) && ctx.Err() == nil:
		r := ApprovalReply{Decision: string(hitl.OutcomePending), Rule: v.Rule, QuestionID: v.QuestionID}
		return text(pendingText(v.QuestionID, "request_approval")), r, nil
	case err != nil:
		return nil, ApprovalReply{}, s.stopped(ctx, v.QuestionID, err)
	}
	r := ApprovalReply{Decision: decision(v), Edited: v.Edited, Message: v.Message, By: v.By, Rule: v.Rule, QuestionID: v.QuestionID}
	msg := "Decision: " + r.Decision
	if v.Outcome == hitl.OutcomeReplied {
		msg = fmt.Sprintf("Not approved: %s replied instead: %s\nDo not carry out the operation; act on the reply.", v.By, v.Message)
		return text(msg), r, nil
	}
	if v.By != "" {
		msg += " by " + v.By
	} else if v.Rule != "" {
		msg += " (policy rule " + v.Rule + ")"
	}
	if v.Message != "" {
		msg += ": " + v.Message
	}
	if v.Edited != "" {
		msg += "\nApproved with an edit: use " + v.Edited + " instead of " + in.Resource
	}
	if !v.Allowed {
		msg += "\nDo not carry out the operation."
	}
	return text(msg), r, nil
}

// decision names a verdict for request_approval.
func decision(v client.GateResult) string {
	switch {
	case v.Allowed:
		return string(hitl.OutcomeApproved)
	case v.Outcome == hitl.OutcomeDefaulted:
		return string(hitl.OutcomeTimedOut)
	}
	return string(v.Outcome)
}

// permission is Claude Code's permission prompt result.
type permission struct {
	Behavior     string         `json:"behavior"`
	UpdatedInput map[string]any `json:"updatedInput,omitempty"`
	Message      string         `json:"message,omitempty"`
}

// result is the JSON text block; an allow always carries updatedInput
// (Claude Code requires it), an object even when the input is empty.
func (p permission) result() *sdk.CallToolResult {
	var v any = p
	if p.Behavior == "allow" {
		in := p.UpdatedInput
		if in == nil {
			in = map[string]any{}
		}
		v = map[string]any{"behavior": "allow", "updatedInput": in}
	}
	b, _ := json.Marshal(v)
	return text(string(b))
}

func deny(format string, args ...any) permission {
	return permission{Behavior: "deny", Message: fmt.Sprintf(format, args...)}
}

// permissionPrompt serves Claude Code's --permission-prompt-tool: input
// tool_name, input (and tool_use_id); the result is one text block of
// JSON, {"behavior":"allow","updatedInput":…} or {"behavior":"deny",
// "message":…}. It never allows what hitl could not decide.
func (s *Server) permissionPrompt(ctx context.Context, req *sdk.CallToolRequest, in permissionInput) (*sdk.CallToolResult, any, error) {
	call := hook.ToolCall{Tool: in.ToolName, Input: in.Input}
	if call.Input == nil {
		call.Input = map[string]any{}
	}
	// A retry of the same tool use (the model tries again after a
	// pending answer) has another tool_use_id: the key leaves it out.
	key := s.keyOf("permission_prompt", []any{call.Tool, call.Input})
	wctx, cancel, tick := s.waiting(ctx, req, "waiting for a person to decide "+call.Tool)
	defer cancel()
	var p permission
	var err error
	var ids []string
	if call.Tool == hook.AskUserQuestionTool {
		var updated map[string]any
		updated, ids, err = hook.AskUserQuestions(wctx, s.opts.Client, s.opts.Run, key, call.Input, 0, tick)
		p = permission{Behavior: "allow", UpdatedInput: updated}
	} else {
		var v client.GateResult
		// Claude Code was about to ask its person: only a rule a person
		// wrote or taught allows, never the default policy.
		// The diff of a file change is computed here, beside the file.
		op := hook.AgentSide(call.OperationAt("Claude Code asks to use "+call.Tool, s.cwd(), hook.ReadLocal), s.opts.Home, s.cwd())
		op.Prompted = true
		v, err = s.opts.Client.Gate(wctx, hitl.ApprovalRequest{RunID: s.opts.Run, IdempotencyKey: key, Operation: op}, tick)
		ids = []string{v.QuestionID}
		p = permissionFor(call, v)
	}
	switch {
	case err != nil && hook.GaveUp(wctx) && ctx.Err() == nil:
		p = deny("No decision yet: %s is still waiting for a person in hitl (%s). Try the same tool call again later to keep waiting for it; nothing new is asked.",
			call.Tool, strings.Join(ids, ", "))
	case err != nil && ctx.Err() != nil:
		for _, id := range ids {
			_ = s.stopped(ctx, id, err)
		}
		return nil, nil, ctx.Err()
	case err != nil:
		p = deny("hitl could not decide, so this is denied: %s", fault.Message(err))
	}
	return p.result(), nil, nil
}

// permissionFor turns a verdict on call into the permission result.
func permissionFor(call hook.ToolCall, v client.GateResult) permission {
	if !v.Allowed {
		switch v.Outcome {
		case hitl.OutcomeTimedOut, hitl.OutcomeDefaulted:
			return deny("Nobody approved %s in time.", call.Tool)
		case hitl.OutcomeCancelled:
			return deny("The approval of %s was cancelled: %s", call.Tool, cmp.Or(v.Message, "no reason given"))
		case hitl.OutcomeReplied:
			return deny("Not approved: %s replied in hitl instead: %s", v.By, v.Message)
		}
		msg := "Denied"
		if v.By != "" {
			msg += " by " + v.By
		}
		return deny("%s: %s", msg, cmp.Or(v.Message, "no reason given"))
	}
	if v.Edited == "" && v.EditedContent == "" {
		return permission{Behavior: "allow", UpdatedInput: call.Input}
	}
	updated, ok := call.EditedInput(v.Edited, v.EditedContent)
	if ok && call.ChangesFiles() {
		// An edited file change is not approved on the diff the person saw:
		// the model makes the edited call, whose diff is asked again.
		b, _ := json.Marshal(updated)
		return deny("%s approved this only with an edit. Make this %s call instead (its diff is asked again before it runs): %s", v.By, call.Tool, b)
	}
	if !ok {
		return deny("%s approved it only with an edit hitl cannot apply to %s: %s", v.By, call.Tool, v.Edited)
	}
	return permission{Behavior: "allow", UpdatedInput: updated}
}
