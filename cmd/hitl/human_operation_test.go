package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPeopleSeeTheOperation: pending, history and status show what an
// approval lets the agent do (the exact command line and, part by part,
// how the policy decided it), not only the agent's reason.
func TestPeopleSeeTheOperation(t *testing.T) {
	m := startMain(t)
	admin := principaltest.As(context.Background(), "admin:test")
	resource := "git status && rm -rf build > gone.txt"
	agentCtx := principaltest.As(context.Background(), "api:agent-1")
	out, err := m.Service.Policies.RequestOperation(agentCtx, hitl.ApprovalRequest{RunID: "op-1",
		Operation: hitl.Operation{Type: hitl.OpShell, Description: "tidy up", Resource: resource}})
	require.NoError(t, err)
	require.Equal(t, hitl.EffectAsk, out.Effect)
	q := waitPending(t, m, "op-1")
	require.NotNil(t, q.Operation)
	require.True(t, hitl.PartsTellMore(q.Parts), "%+v", q.Parts)

	t.Run("pending shows the operation and its parts under it", func(t *testing.T) {
		r := cli(admin, m, "", "pending")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, "OPERATION")
		assert.Contains(t, r.stdout, "tidy up")
		assert.Contains(t, r.stdout, "shell: "+resource+"\n")
		for _, p := range q.Parts {
			assert.Contains(t, r.stdout, p.Verb()+p.Text, "part %+v", p)
		}
	})
	t.Run("history and status show what the run waits to have approved", func(t *testing.T) {
		for _, cmd := range []string{"history", "status"} {
			r := cli(admin, m, "", cmd, "op-1")
			require.Equal(t, 0, r.code, r.stderr)
			assert.Contains(t, r.stdout, "Waiting on "+q.ID+": tidy up\n  To approve: shell: "+resource+"\n", cmd)
			assert.Contains(t, r.stdout, fmt.Sprintf("    %-5s %s  (", q.Parts[0].Effect, q.Parts[0].Text), cmd)
		}
	})
	r := cli(admin, m, "", "answer", q.ID, "deny", "--text", "not today")
	require.Equal(t, 0, r.code, r.stderr)
	t.Run("history and status show what was decided on", func(t *testing.T) {
		for _, cmd := range []string{"history", "status"} {
			r := cli(admin, m, "", cmd, "op-1")
			require.Equal(t, 0, r.code, r.stderr)
			var row string
			for _, l := range strings.Split(r.stdout, "\n") {
				if strings.Contains(l, "tidy up") {
					row = l
				}
			}
			assert.True(t, strings.HasSuffix(row, "shell: "+resource), "%s: %q", cmd, row)
			assert.Contains(t, r.stdout, "writes gone.txt", cmd)
		}
	})
}
