package hitl

import (
	"testing"

	"github.com/hitlbot/hitl/steer"
)

// TestSessionRevives: which ended session runs a hook call brings back.
func TestSessionRevives(t *testing.T) {
	sess := &steer.Session{Agent: "Claude Code"}
	for _, tc := range []struct {
		name string
		c    steer.RunControl
		e    steer.HookEvent
		want bool
	}{
		{"ended by SessionEnd: a resumed session comes back", steer.RunControl{Status: steer.RunDone, Session: sess}, steer.HookSessionStart, true},
		{"ended by idleness: a call brings it back", steer.RunControl{Status: steer.RunAborted, Reason: steer.ReasonIdle, Session: sess}, steer.HookUserPromptSubmit, true},
		{"a SessionEnd brings nothing back", steer.RunControl{Status: steer.RunAborted, Reason: steer.ReasonIdle, Session: sess}, steer.HookSessionEnd, false},
		{"aborted otherwise: stays ended", steer.RunControl{Status: steer.RunAborted, Reason: "CRASHED", Session: sess}, steer.HookUserPromptSubmit, false},
		{"cancelled by a person: stays ended", steer.RunControl{Status: steer.RunCancelled, Reason: steer.ReasonUserCancelled, Session: sess}, steer.HookSessionStart, false},
		{"a loop that is not a session: stays ended", steer.RunControl{Status: steer.RunDone}, steer.HookSessionStart, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.c.Revives(tc.e); got != tc.want {
				t.Errorf("Revives(%s) = %v, want %v", tc.e, got, tc.want)
			}
		})
	}
}
