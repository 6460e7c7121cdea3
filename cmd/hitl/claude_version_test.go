package main

import (
	"context"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHookClaudeSessionStartNamesAnOldVersion: a Claude Code older than
// hitl supports is told once, when its session starts: a systemMessage
// Claude Code shows the person, a line on stderr, and the run's status.
func TestHookClaudeSessionStartNamesAnOldVersion(t *testing.T) {
	m := startMain(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name, session, version, source string
		warned                         bool
	}{
		{"an old version at startup", "old-1", "2.1.197", "startup", true},
		{"an old version resumed is not told again", "old-2", "2.1.197", "resume", false},
		{"the minimum", "new-1", steer.MinClaudeCodeVersion, "startup", false},
		{"a newer one", "new-2", "2.3.0", "startup", false},
		{"no version in the payload", "none-1", "", "startup", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := map[string]any{"session_id": tc.session, "source": tc.source}
			if tc.version != "" {
				set["version"] = tc.version
			}
			r := cli(ctx, m, hookEvent(t, "claude_sessionstart.json", set), "hook", "claude")
			require.Equal(t, 0, r.code, r.stderr)
			run := awaitRun(t, m, "claude-"+tc.session, func(r *hitl.Run) bool { return r.Control.Session != nil })
			assert.Equal(t, tc.version, run.Control.Session.AgentVersion, "the run records the version")
			status := cli(ctx, m, "", "status", "claude-"+tc.session)
			require.Equal(t, 0, status.code, status.stderr)
			assert.Contains(t, status.stdout, "Claude Code session in /home/dev/app")
			if !tc.warned {
				assert.Empty(t, r.stdout, "nothing to say")
				assert.Empty(t, r.stderr)
				if tc.source == "startup" {
					assert.NotContains(t, status.stdout, "Warning:")
				}
				return
			}
			out := hookJSON(t, r)
			assert.Contains(t, out["systemMessage"], "Claude Code 2.1.197 is older than "+steer.MinClaudeCodeVersion)
			assert.Contains(t, r.stderr, "older than "+steer.MinClaudeCodeVersion)
			assert.Contains(t, status.stdout, "Warning: Claude Code 2.1.197 is older than "+steer.MinClaudeCodeVersion)
		})
	}
}
