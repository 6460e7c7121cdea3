package main

import (
	"context"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkCrashAudit: after a kill -9, trail's chain verifies and holds the
// record of every question the API acknowledged asking and of every
// answer it acknowledged.
func checkCrashAudit[Q any, A any](t *testing.T, trail hitl.AuditStore, created map[string]Q, answered map[string]A) {
	t.Helper()
	ctx := context.Background()
	v, err := service.VerifyTrail(ctx, trail, nil)
	require.NoError(t, err)
	require.Nil(t, v.Break, "the chain breaks after the kill")
	asked, settled := map[string]bool{}, map[string]bool{}
	f := hitl.AuditFilter{Limit: 1000}
	for {
		page, err := trail.AuditRecords(ctx, f)
		require.NoError(t, err)
		for _, r := range page {
			switch r.Kind {
			case hitl.AuditAsked:
				asked[r.QuestionID] = true
			case hitl.AuditAnswered:
				settled[r.QuestionID] = true
			}
			f.After = r.Seq
		}
		if len(page) < f.PageSize() {
			break
		}
	}
	for id := range created {
		assert.True(t, asked[id], "acknowledged question %s has no audit record", id)
	}
	for id := range answered {
		assert.True(t, settled[id], "acknowledged answer to %s has no audit record", id)
	}
	t.Logf("%d audit records verify after the kill", v.Records)
}
