package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/stretchr/testify/assert"
)

func TestHookErrorsSayWhatIsWrong(t *testing.T) {
	t.Run("an event the hook does not handle is named, not an internal error", func(t *testing.T) {
		for agent, event := range map[string]string{"claude": "Notification", "codex": "SubagentStop"} {
			var errb bytes.Buffer
			e := &env{stdin: strings.NewReader(`{"hook_event_name":"` + event + `","session_id":"s-1"}`), stdout: &bytes.Buffer{}, stderr: &errb,
				getenv: func(k string) string {
					if k == "HITL_URL" {
						return "http://127.0.0.1:1"
					}
					return ""
				}}
			code := run(context.Background(), []string{"hook", agent}, e)
			assert.Equal(t, exitFailure, code, "not exit 2: the agent would block the tool")
			assert.NotContains(t, errb.String(), "internal error")
			assert.NotContains(t, errb.String(), "hitl hook: hitl hook")
			assert.Contains(t, errb.String(), "hitl hook "+agent+" handles ")
			assert.Contains(t, errb.String(), `not "`+event+`"`)
		}
	})
	t.Run("a hook cut short says how long it waited, not its --wait", func(t *testing.T) {
		m := startMain(t, hookPolicy)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		ch := hookRun(ctx, m, cliOpts{}, hookEvent(t, "claude_pretooluse_bash.json", map[string]any{"session_id": "s-cut"}), "claude")
		q := awaitPending(t, m, "claude-s-cut", 1)[0]
		cancel() // Claude Code stops the hook
		d := decoded(t, result(t, ch))
		assert.Equal(t, "ask", d.PermissionDecision)
		assert.Contains(t, d.PermissionDecisionReason, "the hook was stopped after 0s (before its --wait of 9m0s)")
		assert.NotContains(t, d.PermissionDecisionReason, "within 9m0s")
		got := awaitSettled(t, m, q.ID)
		assert.Equal(t, hitl.StatusCancelled, got.Status)
		assert.Contains(t, got.CancelReason, "Claude Code stopped its hook after 0s (before the hook's --wait of 9m0s)")
	})
}
