package steer

import (
	"strings"
	"time"

	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
)

// A coding-agent session (Claude Code, Codex) is a run: its hooks start
// it (SessionStart), keep it alive (every other hook call), and end it
// (SessionEnd). Steering reaches it through those hook calls: the rule
// below says what a hook call does in each steering state, and the hook
// edge renders that in the agent's own JSON.

// HookEvent is a hook event, by Claude Code's names (Codex uses the same).
type HookEvent string

const (
	HookSessionStart      HookEvent = "SessionStart"
	HookUserPromptSubmit  HookEvent = "UserPromptSubmit"
	HookPreToolUse        HookEvent = "PreToolUse"
	HookPermissionRequest HookEvent = "PermissionRequest"
	HookPostToolUse       HookEvent = "PostToolUse"
	HookStop              HookEvent = "Stop"
	HookSessionEnd        HookEvent = "SessionEnd"
)

// HookEvents lists the events a session reports, in the order a session
// meets them.
var HookEvents = []HookEvent{HookSessionStart, HookUserPromptSubmit, HookPreToolUse, HookPermissionRequest,
	HookPostToolUse, HookStop, HookSessionEnd}

// holds reports whether a paused session holds at e: the agent is about
// to act (a tool call, its permission, a prompt) or would act next on a
// tool's result. SessionStart only registers; a Stop is the agent coming
// to rest, which a pause does not hold.
func (e HookEvent) holds() bool {
	switch e {
	case HookPreToolUse, HookPermissionRequest, HookUserPromptSubmit, HookPostToolUse:
		return true
	}
	return false
}

// carriesContext reports whether the agent hands text from hook output at
// e to its model (additionalContext): where a redirect is delivered.
func (e HookEvent) carriesContext() bool {
	return e == HookPostToolUse || e == HookUserPromptSubmit || e == HookSessionStart
}

// HookAction is what a hook call does about its session's steering state.
type HookAction string

const (
	// HookProceed: nothing to carry out; the hook goes about its own
	// business (deciding a tool call, or nothing).
	HookProceed HookAction = "proceed"
	// HookHold: the run is paused: hold the call until it changes, for up
	// to the hook's wait, then call again with HoldExpired.
	HookHold HookAction = "hold"
	// HookRefuse: still paused when the hold ran out: deny the tool call
	// (or block the prompt) with Reason, so the agent stops rather than
	// proceeds.
	HookRefuse HookAction = "refuse"
	// HookInstruct: hand Instruction to the model as added context.
	HookInstruct HookAction = "instruct"
	// HookKeepGoing: block the agent's Stop with Instruction as the
	// reason, so it keeps working on it.
	HookKeepGoing HookAction = "keep_going"
	// HookHalt: the run was cancelled (or ended otherwise): stop the agent
	// (continue: false) with Reason.
	HookHalt HookAction = "halt"
	// HookEnd: the session ended (SessionEnd): nothing to answer.
	HookEnd HookAction = "end"
)

// Reasons hitl gives for ending a session run.
const (
	// ReasonIdle ends a session that sent nothing for the configured
	// end-after time (ABORT on loop:current).
	ReasonIdle = "SESSION_IDLE"
)

// Session is what a run knows of the coding-agent session it stands for.
type Session struct {
	// Agent is the agent's name: "Claude Code", "Codex".
	Agent string `json:"agent"`
	// AgentVersion is the version the agent's hook payload named, if any
	// (Outdated).
	AgentVersion string `json:"agentVersion,omitempty"`
	CWD          string `json:"cwd,omitempty"`
	// Title is the session's first prompt, cut to MaxTitleLen.
	Title string `json:"title,omitempty"`
	// Idle: the session sent nothing for the idle-after time.
	Idle bool `json:"idle,omitempty"`
	// Held is the hook event a paused session is held at ("" while no
	// hook call is held: the pause reaches it at the next one).
	Held HookEvent `json:"held,omitempty"`
}

// MaxTitleLen bounds a session's title, in characters.
const MaxTitleLen = 200

// maxCWDLen bounds a session's working directory, as a question's context
// field is bounded.
const maxCWDLen = 4000

// HookStep is what a hook call learns: its action and what goes with it.
type HookStep struct {
	RunID  string     `json:"runId"`
	Action HookAction `json:"action"`
	// Reason is the text of a refusal or a halt, naming who paused or
	// cancelled the run.
	Reason string `json:"reason,omitempty"`
	// Instruction is a redirect, handed over with this step, once.
	Instruction string    `json:"instruction,omitempty"`
	Status      RunStatus `json:"status"`
	// Version is the run record's version after the call: a held call
	// waits past it (WaitRun).
	Version uint64 `json:"version"`
}

// SessionHook is one hook call of a session, as the hook edge reports it.
type SessionHook struct {
	RunID string    `json:"runId"`
	Agent string    `json:"agent"`
	Event HookEvent `json:"event"`
	CWD   string    `json:"cwd,omitempty"`
	// Prompt is UserPromptSubmit's prompt: the run's title while it has
	// none.
	Prompt string `json:"prompt,omitempty"`
	Model  string `json:"model,omitempty"`
	// AgentVersion is the agent's version, where its payload names it.
	AgentVersion string `json:"agentVersion,omitempty"`
	// HoldExpired: the hook held this call for its whole wait and the run
	// was still paused at its last look.
	HoldExpired bool `json:"holdExpired,omitempty"`
}

// Validate checks a hook call an agent reports.
func (h *SessionHook) Validate() error {
	if err := ValidateRunID(h.RunID); err != nil {
		return fault.Errorf(fault.EINVALID, "runId: %s", fault.Message(err))
	}
	known := false
	for _, e := range HookEvents {
		known = known || e == h.Event
	}
	switch {
	case !known:
		return fault.Errorf(fault.EINVALID, "event %q is not a session hook event: use SessionStart, UserPromptSubmit, PreToolUse, PermissionRequest, PostToolUse, Stop or SessionEnd", h.Event)
	case strings.TrimSpace(h.Agent) == "" || len(h.Agent) > MaxModelLen:
		return fault.Errorf(fault.EINVALID, "agent is required (like Claude Code), at most %d characters", MaxModelLen)
	case len(h.Model) > MaxModelLen || len(h.CWD) > maxCWDLen || len(h.AgentVersion) > MaxModelLen:
		return fault.Errorf(fault.EINVALID, "model, cwd or agentVersion is too long")
	}
	return nil
}

// SessionStep is the rule of what a hook call at event e does in the
// steering state c (the run's control state once the call is recorded):
//   - a run a person cancelled, or that ended otherwise, halts the agent
//     (SessionEnd just ends);
//   - a paused run holds the calls where the agent is about to act; once
//     the hold ran out (expired) it refuses them, naming who paused it;
//     SessionStart and Stop go through (nothing acts);
//   - a pending redirect is handed over at the first call that can carry
//     it to the model: as context after a tool call, with a prompt, at the
//     session's start, or by blocking the agent's Stop;
//   - SessionEnd ends the run; anything else proceeds.
func SessionStep(c RunControl, e HookEvent, expired bool) HookStep {
	step := func(a HookAction, reason string) HookStep {
		return HookStep{Action: a, Reason: reason, Status: c.Status}
	}
	if e == HookSessionEnd {
		return step(HookEnd, "")
	}
	switch {
	case c.Status.Ended():
		return step(HookHalt, haltReason(c))
	case c.Status == RunPaused && e.holds() && expired:
		return step(HookRefuse, pausedReason(c))
	case c.Status == RunPaused && e.holds():
		return step(HookHold, "")
	case c.Status == RunPaused:
		return step(HookProceed, "")
	case c.Instruction != "" && e.carriesContext():
		s := step(HookInstruct, "")
		s.Instruction = c.Instruction
		return s
	case c.Instruction != "" && e == HookStop:
		s := step(HookKeepGoing, "")
		s.Instruction = c.Instruction
		return s
	}
	return step(HookProceed, "")
}

// pausedReason is what a refused call tells the agent and its person.
func pausedReason(c RunControl) string {
	return "paused by " + orSomeone(c.PausedBy) + " in hitl — waiting: make no further changes until the run is resumed"
}

// haltReason is the stopReason of a halted session.
func haltReason(c RunControl) string {
	switch {
	case c.Status == RunCancelled:
		return "cancelled by " + orSomeone(c.CancelledBy) + " in hitl"
	case c.Reason != "":
		return "the hitl run has ended (" + string(c.Status) + ": " + c.Reason + ")"
	}
	return "the hitl run has ended (" + string(c.Status) + ")"
}

func orSomeone(who string) string {
	if who == "" {
		return "someone"
	}
	return auth.PersonName(who) // as people read who (local, not local:root)
}

// Revives reports whether a hook call at e brings an ended session run
// back to life: one that ended on its own (SessionEnd, or idleness) comes
// back when the agent resumes the session; one a person cancelled, or
// that aborted otherwise, stays ended.
func (c RunControl) Revives(e HookEvent) bool {
	return e != HookSessionEnd && c.Session != nil &&
		(c.Status == RunDone || (c.Status == RunAborted && c.Reason == ReasonIdle))
}

// SessionIdleness is what a session's silence calls for.
type SessionIdleness int

const (
	SessionAwake SessionIdleness = iota // nothing to do
	SessionIdle                         // show it idle
	SessionGone                         // end it (ABORT SESSION_IDLE)
)

// Idleness is the rule of a silent session: a running or paused session
// whose last hook call is idleAfter old is shown idle, and a running one
// endAfter old is ended (a paused one is a person's to resume or cancel).
// 0 turns either off. It calls for nothing already done.
func (c RunControl) Idleness(now time.Time, idleAfter, endAfter time.Duration) SessionIdleness {
	if c.Session == nil || !c.Status.Active() || c.LastStateAt == nil {
		return SessionAwake
	}
	silent := now.Sub(*c.LastStateAt)
	switch {
	case endAfter > 0 && silent >= endAfter && c.Status == RunRunning:
		return SessionGone
	case idleAfter > 0 && silent >= idleAfter && !c.Session.Idle:
		return SessionIdle
	}
	return SessionAwake
}

// SessionTimes are how long a silent session takes to be shown idle and
// to be ended (0 turns either off).
type SessionTimes struct {
	IdleAfter time.Duration
	EndAfter  time.Duration
}
