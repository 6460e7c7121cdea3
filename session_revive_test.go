package hitl

import "testing"

// TestSessionRevives: which ended session runs a hook call brings back.
func TestSessionRevives(t *testing.T) {
	sess := &Session{Agent: "Claude Code"}
	for _, tc := range []struct {
		name string
		c    RunControl
		e    HookEvent
		want bool
	}{
		{"ended by SessionEnd: a resumed session comes back", RunControl{Status: RunDone, Session: sess}, HookSessionStart, true},
		{"ended by idleness: a call brings it back", RunControl{Status: RunAborted, Reason: ReasonIdle, Session: sess}, HookUserPromptSubmit, true},
		{"a SessionEnd brings nothing back", RunControl{Status: RunAborted, Reason: ReasonIdle, Session: sess}, HookSessionEnd, false},
		{"aborted otherwise: stays ended", RunControl{Status: RunAborted, Reason: "CRASHED", Session: sess}, HookUserPromptSubmit, false},
		{"cancelled by a person: stays ended", RunControl{Status: RunCancelled, Reason: ReasonUserCancelled, Session: sess}, HookSessionStart, false},
		{"a loop that is not a session: stays ended", RunControl{Status: RunDone}, HookSessionStart, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.c.Revives(tc.e); got != tc.want {
				t.Errorf("Revives(%s) = %v, want %v", tc.e, got, tc.want)
			}
		})
	}
}
