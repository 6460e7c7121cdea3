package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPendingByDeadline: `hitl pending --order deadline` lists what waits
// soonest deadline first, those that never time out last, through the
// API's order=deadline; an order it does not know is a usage error.
func TestPendingByDeadline(t *testing.T) {
	m := startMain(t)
	ctx := principaltest.As(context.Background(), "api:ci")
	minutes := func(m float64) *float64 { return &m }
	var want []string
	for _, n := range []hitl.NewQuestion{
		{Question: "Whenever?", Type: hitl.NonBlocking, DefaultResponse: &hitl.Response{Value: "ok"}},
		{Question: "Later?", TimeoutMinutes: minutes(50)},
		{Question: "Soon?", TimeoutMinutes: minutes(10)},
	} {
		q, _, err := m.Service.Questions.Create(ctx, "order", n)
		require.NoError(t, err)
		want = append([]string{q.ID}, want...) // asked last, due first: Soon, Later, Whenever
	}
	r := cli(ctx, m, "", "pending", "--order", "deadline", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var out struct{ Questions []hitl.Question }
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out))
	var got []string
	for _, q := range out.Questions {
		got = append(got, q.ID)
	}
	assert.Equal(t, want, got)

	created := cli(ctx, m, "", "pending", "--json")
	require.Equal(t, 0, created.code, created.stderr)
	assert.NotEqual(t, r.stdout, created.stdout, "oldest first by default")

	bad := cli(ctx, m, "", "pending", "--order", "soonest")
	assert.Equal(t, exitUsage, bad.code)
	assert.Contains(t, bad.stderr, "use created (the default) or deadline")
}
