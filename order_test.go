package hitl_test

import (
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOrderBy: the orders a question list is read in, one row per rule.
func TestOrderBy(t *testing.T) {
	for _, tc := range []struct {
		name       string
		status     hitl.Status
		order      hitl.ListOrder
		byDeadline bool
		code       string
	}{
		{"no order is creation order", "", "", false, ""},
		{"created is creation order", hitl.StatusAnswered, hitl.OrderCreated, false, ""},
		{"deadline lists by deadline", "", hitl.OrderDeadline, true, ""},
		{"deadline with the pending status", hitl.StatusPending, hitl.OrderDeadline, true, ""},
		{"deadline with another status is invalid: a list by deadline holds pending questions only", hitl.StatusAnswered, hitl.OrderDeadline, false, fault.EINVALID},
		{"an order of another name is invalid", "", "soonest", false, fault.EINVALID},
		{"names are exact", "", "Deadline", false, fault.EINVALID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := hitl.QuestionFilter{Status: tc.status}
			err := f.OrderBy(tc.order)
			assert.Equal(t, tc.code, fault.Code(err))
			assert.Equal(t, tc.byDeadline, f.ByDeadline)
		})
	}
	t.Run("created after deadline is creation order again", func(t *testing.T) {
		f := hitl.QuestionFilter{}
		require.NoError(t, f.OrderBy(hitl.OrderDeadline))
		require.NoError(t, f.OrderBy(hitl.OrderCreated))
		assert.False(t, f.ByDeadline)
	})
}
