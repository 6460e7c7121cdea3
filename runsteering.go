package hitl

import (
	"time"

	"github.com/hitlbot/hitl/steer"
)

// What steering does to a coding-agent session: the same commands, rules
// and RESULTs as for a loop (Service.Control), with two differences. A
// session is reached at its next hook call, so a RESULT says the command
// is committed and queued for that call (the run's live message shows
// whether the agent was reached: held, or the instruction still queued).
// And a hook cannot switch the agent's model: escalate fails.

// Refusal is the failure RESULT of req on run r (the record of run id;
// nil when there is none) when the run in its state cannot carry req out,
// whoever asks: a run that is not active (ended, or only asking
// questions) is not_found; pause on a paused run and resume on one that is
// not paused are invalid_state; a session refuses escalate
// (unsupported). Service.Control refuses by it, and the pages offer only
// the commands it lets through (Run.Offers), so the two cannot disagree.
func (r *Run) Refusal(id string, req steer.ControlMessage) (steer.ControlPayload, bool) {
	if r == nil || !r.Control.Status.Active() {
		return steer.Failure(steer.CodeNotFound, "Run "+id+" is not active"), true
	}
	if r.Control.Session != nil {
		if res, fail := sessionRefusal(r, req); fail {
			return res, true
		}
	}
	switch c := r.Control; {
	case req.Command == steer.CommandPause && c.Status == steer.RunPaused:
		return steer.Failure(steer.CodeInvalidState, "Run "+r.ID+" is already paused"), true
	case req.Command == steer.CommandResume && c.Status != steer.RunPaused:
		return steer.Failure(steer.CodeInvalidState, "Run "+r.ID+" is not paused: it is "+string(c.Status)), true
	}
	return steer.ControlPayload{}, false
}

// Offers reports whether the run in its state can carry command cmd out
// (Refusal): what a run page offers.
func (r *Run) Offers(cmd steer.Command) bool {
	_, refused := r.Refusal(r.ID, steer.ControlMessage{Command: cmd})
	return !refused
}

// sessionRefusal is the RESULT of a command a session cannot carry out.
func sessionRefusal(r *Run, req steer.ControlMessage) (steer.ControlPayload, bool) {
	if req.Command != steer.CommandEscalate {
		return steer.ControlPayload{}, false
	}
	a := r.Control.Session.Agent
	return steer.Failure(steer.CodeUnsupported, "Run "+r.ID+" is a "+a+" session: "+a+
		" cannot switch models from a hook. Change the model in its terminal (/model "+req.Payload.Model+
		"), or cancel it and start it again with that model"), true
}

// Steered is a successful RESULT's message for r, after the command: a
// loop's as it is; a session's says when the agent gets it.
func (r *Run) Steered(cmd steer.Command, loopMsg string) string {
	s := r.Control.Session
	if s == nil {
		return loopMsg
	}
	a := s.Agent
	switch c := r.Control; {
	case c.Status == steer.RunCancelled:
		return "Session cancelled: " + a + " is stopped at its next hook call"
	case cmd == steer.CommandRedirect && c.Status == steer.RunPaused:
		return "Instruction queued: " + a + " gets it at its next step once the session is resumed (it stays paused)"
	case c.Status == steer.RunPaused && s.Held != "":
		return "Session paused: " + a + " is held at " + string(s.Held)
	case c.Status == steer.RunPaused:
		return "Session paused: queued, " + a + " holds at its next hook call (a tool call or a prompt)"
	case cmd == steer.CommandRedirect:
		return "Instruction queued: " + a + " gets it at its next step (after a tool call, with the next prompt, or when it stops)"
	case s.Held != "":
		return "Session resumed: " + a + " goes on from " + string(s.Held)
	}
	return "Session resumed"
}

// Unhold forgets the hook call a session was held at: a pause starts
// unreached, and a resume lets the held call go (a held hook the agent
// killed meanwhile must not show as held).
func (r *Run) Unhold() {
	if r.Control.Session != nil {
		r.Control.Session.Held = ""
	}
}

// stack is the run's loop as a STATE reports it.
func (r *Run) stack() []steer.StackEntry {
	c := r.Control
	return []steer.StackEntry{{ID: r.ID, Mode: c.Mode, Iter: c.Iter, Max: c.Max, Model: c.Model, EscalationReason: c.EscalationReason}}
}

// StateEventOf is the loop:current event that reports run now.
func (r *Run) StateEventOf(typ steer.StateEventType, reason string, now time.Time) *steer.StateEvent {
	return &steer.StateEvent{Schema: steer.StateSchema, Event: typ, RunID: r.ID, UpdatedAt: steer.Timestamp(now), Reason: reason, Stack: r.stack()}
}

// RecordsNothing reports whether a checkpoint reporting e, held while the
// run was paused, has nothing to record now that r woke it: r ended (the
// agent learns so, and an ended run records no report), or r is paused
// or running and absorbing e again changes nothing on r but the time of
// the last report (the held report was absorbed when it was made, and the
// resume let its iteration in), with nothing to hand over. A new model or
// an instruction waiting for a running loop is handed over by a commit,
// once.
func (r *Run) RecordsNothing(e *steer.StateEvent) bool {
	c := r.Control
	switch {
	case c.Status.Ended():
		return true
	case !c.Status.Active(), r.ID != e.RunID, e.Event != steer.StateRunning:
		return false
	case c.Status == steer.RunRunning && (c.NewModel != "" || c.Instruction != ""):
		return false
	}
	next := c
	next.Absorb(e, time.Time{})
	next.LastStateAt = c.LastStateAt
	return next == c
}

// Describe is how RESULT messages name where a run is.
func (r *Run) Describe() string {
	if it := r.Control.Iteration(); it != "" {
		return " at iteration " + it
	}
	return ""
}
