package main

import (
	"fmt"

	"github.com/hitlbot/hitl/steer"
)

// claudeSessionStart answers Claude Code's SessionStart: what steering
// asks (a queued redirect), and, when the session starts (not when it
// resumes, is cleared or compacted) on a Claude Code older than hitl
// supports (steer.MinClaudeCodeVersion), a systemMessage the person sees
// in Claude Code saying so, once per session, with the same line on
// stderr. The run records the version (hitl status and the web's run page
// show the warning).
func (h *hookCall) claudeSessionStart(step steer.HookStep) error {
	out, steered := h.steered(step)
	if warn := steer.ClaudeCodeTooOld(h.in.Version); warn != "" && (h.in.Source == "" || h.in.Source == "startup") {
		out.SystemMessage = "hitl: " + warn
		fmt.Fprintf(h.e.stderr, "hitl hook: %s\n", warn)
	}
	if !steered && out.SystemMessage == "" {
		return nil
	}
	return h.print(out)
}
