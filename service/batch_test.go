package service_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBatchRules: what a batch may do to each selected approval — approve,
// or deny with one reason; never reply, edit or teach — and which
// selections it takes.
func TestBatchRules(t *testing.T) {
	for _, tc := range []struct {
		decision, reason string
		want             hitl.Response
		code             string
	}{
		{decision: "approve", want: hitl.Response{Type: hitl.ApprovalResponse, Value: hitl.Approve}},
		{decision: "approve", reason: "ignored", want: hitl.Response{Type: hitl.ApprovalResponse, Value: hitl.Approve}},
		{decision: "deny", reason: "  not today ", want: hitl.Response{Type: hitl.ApprovalResponse, Value: hitl.Deny, Text: "not today"}},
		{decision: "reply", reason: "use staging", code: fault.EINVALID},
		{decision: "yes", code: fault.EINVALID},
		{decision: "", code: fault.EINVALID},
	} {
		t.Run("decision "+tc.decision, func(t *testing.T) {
			r, err := hitl.BatchResponse(tc.decision, tc.reason)
			if tc.code != "" {
				require.Equal(t, tc.code, fault.Code(err))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, r)
			assert.False(t, r.Always, "a batch never teaches a rule")
			assert.Empty(t, r.Edited, "a batch never edits")
		})
	}
	many := make([]string, hitl.MaxBatch+1)
	for i := range many {
		many[i] = fmt.Sprintf("q_%d", i)
	}
	for _, tc := range []struct {
		name string
		ids  []string
		want []string
		code string
	}{
		{"each selected once, in order", []string{"q_2", "q_1", "q_2", " q_3 "}, []string{"q_2", "q_1", "q_3"}, ""},
		{"nothing selected", []string{"", " "}, nil, fault.EINVALID},
		{"at most MaxBatch", many, nil, fault.EINVALID},
		{"exactly MaxBatch", many[:hitl.MaxBatch], many[:hitl.MaxBatch], ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := hitl.BatchIDs(tc.ids)
			if tc.code != "" {
				require.Equal(t, tc.code, fault.Code(err))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	t.Run("a batch's typed response is refused for a question that is not an approval", func(t *testing.T) {
		svc := newPolicyService(t, memstore.New())
		q, _, err := svc.Questions.Create(auth.WithPrincipal(context.Background(), asker), "run-1", hitl.NewQuestion{Question: "Deploy?", ResponseType: hitl.BooleanResponse})
		require.NoError(t, err)
		r, err := hitl.BatchResponse("approve", "")
		require.NoError(t, err)
		_, err = svc.Questions.Answer(auth.WithPrincipal(context.Background(), answerer), q.ID, r)
		assert.Equal(t, fault.EINVALID, fault.Code(err))
	})
}
