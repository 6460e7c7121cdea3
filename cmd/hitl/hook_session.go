package main

import (
	"context"
	"fmt"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/hook"
	"github.com/hitlbot/hitl/steer"
)

// A hook call is first a session's report (service.Runs.Hook): the
// service says what steering asks of this call (hitl.SessionStep), and
// this file renders that as the hook output Claude Code and Codex act on
// (the two agents read the same fields). A call the service holds
// (paused) waits here for the run to change, for up to --wait.

// hookOut is a hook's whole output: the fields every event reads
// (continue, stopReason), the blocking decision of UserPromptSubmit,
// PostToolUse and Stop (decision "block" with a reason), and the event's
// own hookSpecificOutput.
type hookOut struct {
	Continue           *bool  `json:"continue,omitempty"`
	StopReason         string `json:"stopReason,omitempty"`
	SystemMessage      string `json:"systemMessage,omitempty"`
	Decision           string `json:"decision,omitempty"`
	Reason             string `json:"reason,omitempty"`
	HookSpecificOutput any    `json:"hookSpecificOutput,omitempty"`
}

// contextOutput is the hookSpecificOutput that hands text to the model.
type contextOutput struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext"`
}

// session reports the call and returns its step. While the run is paused
// it holds: it waits for the run to change and reports again, until --wait
// runs out, then reports with HoldExpired (the service refuses the call).
// When hitl cannot be reached the step is proceed: steering is best
// effort, the tool decision still never allows what hitl did not decide.
func (h *hookCall) session(ctx context.Context) steer.HookStep {
	call := steer.SessionHook{RunID: h.run, Agent: h.agent, Event: steer.HookEvent(h.in.HookEventName),
		CWD: cut(h.in.CWD, hitl.MaxContextLen), Prompt: h.in.Prompt, Model: cut(h.in.Model, steer.MaxModelLen),
		AgentVersion: cut(h.in.Version, steer.MaxModelLen)}
	step, err := h.report(ctx, call)
	if err == nil && step.Action == steer.HookHold {
		step, err = h.hold(ctx, call, step)
	}
	if err != nil {
		fmt.Fprintf(h.e.stderr, "hitl hook: cannot report the session: %s\n", visible(fault.Message(err)))
		return steer.HookStep{RunID: h.run, Action: steer.HookProceed}
	}
	return step
}

// report is one report of the call.
func (h *hookCall) report(ctx context.Context, call steer.SessionHook) (steer.HookStep, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return h.c.Hook(ctx, call)
}

// hold waits while the run is paused: each change of the run is reported
// again (a resume lets the call go on, a cancel halts it), for up to
// --wait; what is left of --wait after the hold is what the tool's
// decision may still take.
func (h *hookCall) hold(ctx context.Context, call steer.SessionHook, step steer.HookStep) (steer.HookStep, error) {
	start := time.Now()
	fmt.Fprintf(h.e.stderr, "hitl hook: %s is paused in hitl: holding this %s for up to %s\n", h.run, call.Event, h.wait)
	gctx, cancel := hook.GiveUpAt(ctx, h.e.afterFunc()(h.wait))
	defer cancel()
	defer func() { h.wait = max(h.wait-time.Since(start), time.Second) }()
	for step.Action == steer.HookHold {
		_, err := h.c.HoldRun(gctx, h.run, step.Version)
		if gctx.Err() != nil {
			if ctx.Err() != nil {
				return step, ctx.Err() // the agent stopped the hook
			}
			call.HoldExpired = true
			return h.report(ctx, call)
		}
		if err == nil {
			var next steer.HookStep
			if next, err = h.report(ctx, call); err == nil {
				step = next
				continue
			}
		}
		if !retryable(err) {
			return step, err
		}
		// The service restarts or fails over: the run is still paused
		// for all this call knows; hold on and look again.
		_ = h.e.wait(gctx, time.Second)
	}
	return step, nil
}

// steered renders the step for the event when steering decides the
// call: it returns the output and true, or false when the call goes about
// its own business (a tool call to decide, or nothing to say).
func (h *hookCall) steered(step steer.HookStep) (hookOut, bool) {
	ev := h.in.HookEventName
	no := false
	switch step.Action {
	case steer.HookHalt:
		out := hookOut{Continue: &no, StopReason: step.Reason}
		switch ev {
		case "PreToolUse":
			out.HookSpecificOutput = claudePreToolUse{HookEventName: ev, PermissionDecision: "deny", PermissionDecisionReason: step.Reason}
		case "PermissionRequest":
			out.HookSpecificOutput = claudePermissionRequest{HookEventName: ev, Decision: claudePermissionDecision{Behavior: "deny", Message: step.Reason}}
		}
		return out, true
	case steer.HookRefuse:
		switch ev {
		case "PreToolUse":
			return hookOut{HookSpecificOutput: claudePreToolUse{HookEventName: ev, PermissionDecision: "deny", PermissionDecisionReason: step.Reason}}, true
		case "PermissionRequest":
			return hookOut{HookSpecificOutput: claudePermissionRequest{HookEventName: ev, Decision: claudePermissionDecision{Behavior: "deny", Message: step.Reason}}}, true
		}
		return hookOut{Decision: "block", Reason: step.Reason}, true
	case steer.HookInstruct:
		return hookOut{HookSpecificOutput: contextOutput{HookEventName: ev, AdditionalContext: redirected(step.Instruction)}}, true
	case steer.HookKeepGoing:
		return hookOut{Decision: "block", Reason: redirected(step.Instruction)}, true
	}
	return hookOut{}, false
}

// redirected is how a redirect reaches the model.
func redirected(instruction string) string {
	return "A person steering this session through hitl redirects you. Follow this instruction now, before anything else you planned: " + instruction
}
