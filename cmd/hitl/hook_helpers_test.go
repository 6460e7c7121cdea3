package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/stretchr/testify/require"
)

// hookEvent is a recorded hook event from testdata/hooks (shaped as
// Claude Code and Codex document them) with top-level fields replaced.
func hookEvent(t *testing.T, file string, set map[string]any) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "hooks", file))
	require.NoError(t, err)
	var ev map[string]any
	require.NoError(t, json.Unmarshal(b, &ev))
	for k, v := range set {
		ev[k] = v
	}
	out, err := json.Marshal(ev)
	require.NoError(t, err)
	return string(out)
}

// hookDecision is what a hook printed: Claude Code's PreToolUse fields,
// or the PermissionRequest decision (Claude Code and Codex).
type hookDecision struct {
	HookEventName            string         `json:"hookEventName"`
	PermissionDecision       string         `json:"permissionDecision"`
	PermissionDecisionReason string         `json:"permissionDecisionReason"`
	UpdatedInput             map[string]any `json:"updatedInput"`
	AdditionalContext        string         `json:"additionalContext"`
	Decision                 *struct {
		Behavior     string         `json:"behavior"`
		Message      string         `json:"message"`
		UpdatedInput map[string]any `json:"updatedInput"`
	} `json:"decision"`
}

// decoded parses a hook's stdout: one JSON object with hookSpecificOutput
// and nothing else.
func decoded(t *testing.T, r cliResult) hookDecision {
	t.Helper()
	require.Equal(t, 0, r.code, "hooks exit 0 with a decision: %s", r.stderr)
	var out map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out), "stdout is JSON: %q", r.stdout)
	require.Len(t, out, 1, "only hookSpecificOutput: %s", r.stdout)
	var d hookDecision
	require.NoError(t, json.Unmarshal(out["hookSpecificOutput"], &d))
	return d
}

// hookRun runs `hitl hook ARGS` with event on stdin in the background.
func hookRun(ctx context.Context, m *Main, o cliOpts, event string, args ...string) <-chan cliResult {
	o.stdin = strings.NewReader(event)
	return startCLIWith(ctx, m, o, append([]string{"hook"}, args...)...)
}

// awaitPending waits until n questions are pending in run and returns them,
// oldest first.
func awaitPending(t *testing.T, m *Main, run string, n int) []*hitl.Question {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		changed := m.Service.Log.Changed()
		qs, err := m.Service.Questions.Questions(principaltest.As(context.Background(), "admin:test"), hitl.QuestionFilter{RunID: run, Status: hitl.StatusPending})
		require.NoError(t, err)
		if len(qs) >= n {
			return qs
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("fewer than %d questions pending in run %s", n, run)
		}
	}
}

// question reads question id as it is stored.
func question(t *testing.T, m *Main, id string) *hitl.Question {
	t.Helper()
	q, err := m.Service.Questions.Question(principaltest.As(context.Background(), "admin:test"), id)
	require.NoError(t, err)
	return q
}

// awaitAll returns every question of run, whatever its status.
func awaitAll(t *testing.T, m *Main, run string) []*hitl.Question {
	t.Helper()
	qs, err := m.Service.Questions.Questions(principaltest.As(context.Background(), "admin:test"), hitl.QuestionFilter{RunID: run})
	require.NoError(t, err)
	return qs
}

// awaitSettled waits until question id is no longer pending.
func awaitSettled(t *testing.T, m *Main, id string) *hitl.Question {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		changed := m.Service.Log.Changed()
		if q := question(t, m, id); !q.Pending() {
			return q
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("question %s is still pending", id)
		}
	}
}
