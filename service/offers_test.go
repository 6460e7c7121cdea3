package service_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunOffers: what a run page offers is what the service does. Each row
// is a run in a state; for each steering command, Run.Offers says whether
// it can succeed, and the service, asked by a controller, agrees.
func TestRunOffers(t *testing.T) {
	all := []steer.Command{steer.CommandPause, steer.CommandResume, steer.CommandCancel, steer.CommandEscalate, steer.CommandRedirect}
	for _, tc := range []struct {
		name   string
		setup  func(t *testing.T, e *controlEnv, run string)
		offers []steer.Command
	}{
		{"a running loop", func(t *testing.T, e *controlEnv, run string) { e.state(t, run, 1, "haiku") },
			[]steer.Command{steer.CommandPause, steer.CommandCancel, steer.CommandEscalate, steer.CommandRedirect}},
		{"a paused loop", func(t *testing.T, e *controlEnv, run string) {
			e.state(t, run, 1, "haiku")
			e.send(t, controller, "pause-"+run, steer.CommandPause, run, steer.ControlPayload{})
		}, []steer.Command{steer.CommandResume, steer.CommandCancel, steer.CommandEscalate, steer.CommandRedirect}},
		{"a finished loop", func(t *testing.T, e *controlEnv, run string) {
			e.state(t, run, 1, "haiku")
			_, err := e.svc.Runs.Publish(auth.WithPrincipal(context.Background(), loopAgent), steer.StateEvent{Event: steer.StateDone, RunID: run})
			require.NoError(t, err)
		}, nil},
		{"a cancelled loop", func(t *testing.T, e *controlEnv, run string) {
			e.state(t, run, 1, "haiku")
			e.send(t, controller, "cancel-"+run, steer.CommandCancel, run, steer.ControlPayload{})
		}, nil},
		{"a run that only asks questions", func(t *testing.T, e *controlEnv, run string) {
			_, _, err := e.svc.Questions.Create(auth.WithPrincipal(context.Background(), loopAgent), run, hitl.NewQuestion{Question: "Which DB?"})
			require.NoError(t, err)
		}, nil},
		{"a Claude Code session", func(t *testing.T, e *controlEnv, run string) {
			_, err := e.svc.Runs.Hook(auth.WithPrincipal(context.Background(), loopAgent), steer.SessionHook{RunID: run, Agent: "Claude Code", Event: steer.HookSessionStart, CWD: "/src/app"})
			require.NoError(t, err)
		}, []steer.Command{steer.CommandPause, steer.CommandCancel, steer.CommandRedirect}},
		{"a paused Codex session", func(t *testing.T, e *controlEnv, run string) {
			_, err := e.svc.Runs.Hook(auth.WithPrincipal(context.Background(), loopAgent), steer.SessionHook{RunID: run, Agent: "Codex", Event: steer.HookSessionStart})
			require.NoError(t, err)
			e.send(t, controller, "pause-"+run, steer.CommandPause, run, steer.ControlPayload{})
		}, []steer.Command{steer.CommandResume, steer.CommandCancel, steer.CommandRedirect}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, cmd := range all {
				t.Run(string(cmd), func(t *testing.T) {
					e := newControlEnv(t) // each command on a fresh run in that state
					const run = "run-1"
					tc.setup(t, e, run)
					rec, err := e.svc.Runs.RunRecord(auth.WithPrincipal(context.Background(), controller), run)
					require.NoError(t, err)
					want := false
					for _, c := range tc.offers {
						want = want || c == cmd
					}
					assert.Equal(t, want, rec.Offers(cmd), "offered")
					msgs := e.send(t, controller, fmt.Sprintf("req-%s", cmd), cmd, run, steer.ControlPayload{Model: "opus", Instruction: "use v2"})
					_, failed := msgs[len(msgs)-1].Failed()
					assert.Equal(t, want, !failed, "the service agrees: %+v", msgs[len(msgs)-1].Payload)
				})
			}
		})
	}
}
