package hitl

// What steering does to a coding-agent session: the same commands, rules
// and RESULTs as for a loop (Service.Control), with two differences. A
// session is reached at its next hook call, so a RESULT says the command
// is committed and queued for that call (the run's live message shows
// whether the agent was reached: held, or the instruction still queued).
// And a hook cannot switch the agent's model: escalate fails.

// sessionRefusal is the RESULT of a command a session cannot carry out.
func sessionRefusal(r *Run, req ControlMessage) (ControlPayload, bool) {
	if req.Command != CommandEscalate {
		return ControlPayload{}, false
	}
	a := r.Control.Session.Agent
	return failure(CodeUnsupported, "Run "+r.ID+" is a "+a+" session: "+a+
		" cannot switch models from a hook. Change the model in its terminal (/model "+req.Payload.Model+
		"), or cancel it and start it again with that model"), true
}

// steered is a successful RESULT's message for r, after the command: a
// loop's as it is; a session's says when the agent gets it.
func (r *Run) steered(cmd Command, loopMsg string) string {
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
func (r *Run) unhold() {
	if r.Control.Session != nil {
		r.Control.Session.Held = ""
	}
}
