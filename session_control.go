package hitl

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
func (r *Run) Refusal(id string, req ControlMessage) (ControlPayload, bool) {
	if r == nil || !r.Control.Status.Active() {
		return Failure(CodeNotFound, "Run "+id+" is not active"), true
	}
	if r.Control.Session != nil {
		if res, fail := sessionRefusal(r, req); fail {
			return res, true
		}
	}
	switch c := r.Control; {
	case req.Command == CommandPause && c.Status == RunPaused:
		return Failure(CodeInvalidState, "Run "+r.ID+" is already paused"), true
	case req.Command == CommandResume && c.Status != RunPaused:
		return Failure(CodeInvalidState, "Run "+r.ID+" is not paused: it is "+string(c.Status)), true
	}
	return ControlPayload{}, false
}

// Offers reports whether the run in its state can carry command cmd out
// (Refusal): what a run page offers.
func (r *Run) Offers(cmd Command) bool {
	_, refused := r.Refusal(r.ID, ControlMessage{Command: cmd})
	return !refused
}

// sessionRefusal is the RESULT of a command a session cannot carry out.
func sessionRefusal(r *Run, req ControlMessage) (ControlPayload, bool) {
	if req.Command != CommandEscalate {
		return ControlPayload{}, false
	}
	a := r.Control.Session.Agent
	return Failure(CodeUnsupported, "Run "+r.ID+" is a "+a+" session: "+a+
		" cannot switch models from a hook. Change the model in its terminal (/model "+req.Payload.Model+
		"), or cancel it and start it again with that model"), true
}

// steered is a successful RESULT's message for r, after the command: a
// loop's as it is; a session's says when the agent gets it.
func (r *Run) Steered(cmd Command, loopMsg string) string {
	s := r.Control.Session
	if s == nil {
		return loopMsg
	}
	a := s.Agent
	switch c := r.Control; {
	case c.Status == RunCancelled:
		return "Session cancelled: " + a + " is stopped at its next hook call"
	case cmd == CommandRedirect && c.Status == RunPaused:
		return "Instruction queued: " + a + " gets it at its next step once the session is resumed (it stays paused)"
	case c.Status == RunPaused && s.Held != "":
		return "Session paused: " + a + " is held at " + string(s.Held)
	case c.Status == RunPaused:
		return "Session paused: queued, " + a + " holds at its next hook call (a tool call or a prompt)"
	case cmd == CommandRedirect:
		return "Instruction queued: " + a + " gets it at its next step (after a tool call, with the next prompt, or when it stops)"
	case s.Held != "":
		return "Session resumed: " + a + " goes on from " + string(s.Held)
	}
	return "Session resumed"
}

// unhold forgets the hook call a session was held at: a pause starts
// unreached, and a resume lets the held call go (a held hook the agent
// killed meanwhile must not show as held).
func (r *Run) Unhold() {
	if r.Control.Session != nil {
		r.Control.Session.Held = ""
	}
}
