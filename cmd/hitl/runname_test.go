package main

import (
	"context"
	"strings"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunByItsHandle: hitl pending and hitl show name a question's run by
// its handle, as hitl runs does; --json keeps the full id.
func TestRunByItsHandle(t *testing.T) {
	m := startMain(t)
	ctx := context.Background()
	const run = "claude-3f2b8c1e-9d7a-4c1b-8e2f-0a1b2c3d4e5f"
	q, _, err := m.Service.Questions.Create(principaltest.As(ctx, "local:tester"), run, hitl.NewQuestion{Question: "Ship it?", Type: hitl.Approval})
	require.NoError(t, err)

	pending := cli(ctx, m, "", "pending")
	require.Equal(t, 0, pending.code, pending.stderr)
	assert.Contains(t, pending.stdout, " claude-3f2b ")
	assert.NotContains(t, pending.stdout, run, "the long id is --json's")
	asJSON := cli(ctx, m, "", "pending", "--json")
	assert.Contains(t, asJSON.stdout, `"jobId": "`+run+`"`)

	show := cli(ctx, m, "", "show", q.ID)
	require.Equal(t, 0, show.code, show.stderr)
	assert.True(t, strings.Contains(show.stdout, "Run: claude-3f2b ·"), show.stdout)
	assert.Contains(t, cli(ctx, m, "", "show", q.ID, "--json").stdout, run)
	assert.Contains(t, cli(ctx, m, "", "runs").stdout, "claude-3f2b ", "the same name hitl runs gives it")
	answered := cli(ctx, m, "", "answer", q.ID, "approve")
	require.Equal(t, 0, answered.code, answered.stderr)
	assert.Contains(t, answered.stdout, "Answered "+q.ID+" (run claude-3f2b): approve")
}
