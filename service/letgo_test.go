package service_test

import (
	"context"
	"testing"

	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLetGo is the rule of a held hook call that went away (the agent
// killed the hook): the held mark it left is cleared, with a STATE event
// (the live message is redrawn), unless the run changed since the call
// was held; only who may report on the run lets go of its calls.
func TestLetGo(t *testing.T) {
	ctx := context.Background()
	as := func(p auth.Principal) context.Context { return auth.WithPrincipal(ctx, p) }
	// held pauses run and holds a PreToolUse call; it returns the
	// version the call was held at.
	held := func(t *testing.T, e *sessionEnv, run string) uint64 {
		t.Helper()
		e.hook(t, run, steer.HookSessionStart)
		result(t, e.send(t, controller, "p-"+run, steer.CommandPause, run, steer.ControlPayload{}))
		s := e.hook(t, run, steer.HookPreToolUse)
		require.Equal(t, steer.HookHold, s.Action)
		require.Equal(t, steer.HookPreToolUse, e.run(t, run).Control.Session.Held)
		return s.Version
	}
	for _, tc := range []struct {
		name    string
		between func(t *testing.T, e *sessionEnv, run string) // after the hold, before the hook went away
		who     auth.Principal
		code    string
		held    steer.HookEvent // the mark afterwards
		state   bool            // a STATE event was added
	}{
		{"the held call went away: the mark clears", nil, sessionAgent, "", "", true},
		{"another call holds since: it stays held", func(t *testing.T, e *sessionEnv, run string) {
			e.hook(t, run, steer.HookUserPromptSubmit)
		}, sessionAgent, "", steer.HookUserPromptSubmit, false},
		{"resumed since: nothing to let go", func(t *testing.T, e *sessionEnv, run string) {
			result(t, e.send(t, controller, "r-"+run, steer.CommandResume, run, steer.ControlPayload{}))
		}, sessionAgent, "", "", false},
		{"not the run's owner: refused", nil, auth.TokenPrincipal("other", nil, ""), fault.EFORBIDDEN, steer.HookPreToolUse, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newSessionEnv(t)
			version := held(t, e, "claude-l")
			if tc.between != nil {
				tc.between(t, e, "claude-l")
			}
			before := len(e.loopEvents(t, "claude-l"))
			err := e.svc.Runs.LetGo(as(tc.who), "claude-l", version)
			assert.Equal(t, tc.code, fault.Code(err))
			assert.Equal(t, tc.held, e.run(t, "claude-l").Control.Session.Held)
			evs := e.loopEvents(t, "claude-l")
			if tc.state {
				assert.Equal(t, []string{"STATE "}, evs[before:], "one STATE event: the live message is redrawn")
			} else {
				assert.Len(t, evs, before, "nothing written")
			}
		})
	}
	t.Run("a call that was never held: nothing to let go", func(t *testing.T) {
		e := newSessionEnv(t)
		s := e.hook(t, "claude-n", steer.HookPreToolUse)
		require.Equal(t, steer.HookProceed, s.Action)
		before := len(e.loopEvents(t, "claude-n"))
		require.NoError(t, e.svc.Runs.LetGo(as(sessionAgent), "claude-n", e.run(t, "claude-n").Version))
		assert.Len(t, e.loopEvents(t, "claude-n"), before, "nothing written")
	})
	t.Run("the owner's token without the ask scope: refused", func(t *testing.T) {
		e := newSessionEnv(t)
		version := held(t, e, "claude-l")
		err := e.svc.Runs.LetGo(as(auth.TokenPrincipal("claude", []auth.Scope{auth.ScopeControl}, "")), "claude-l", version)
		assert.Equal(t, fault.EFORBIDDEN, fault.Code(err))
		assert.Equal(t, steer.HookPreToolUse, e.run(t, "claude-l").Control.Session.Held)
	})
	t.Run("an unknown run: nothing to let go", func(t *testing.T) {
		e := newSessionEnv(t)
		require.NoError(t, e.svc.Runs.LetGo(as(sessionAgent), "claude-none", 1))
		_, err := e.svc.Runs.RunRecord(ctx, "claude-none")
		assert.Equal(t, fault.ENOTFOUND, fault.Code(err))
	})
}
