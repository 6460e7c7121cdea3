package hitl_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/policy"
)

// TestOperationLimits: an operation's description becomes a question's
// text, its fields are shown as a question's context, and an escalation's
// people become its assignees, so each is bounded as those are.
func TestOperationLimits(t *testing.T) {
	assert.Equal(t, hitl.MaxQuestionLen, policy.MaxDescriptionLen)
	assert.Equal(t, hitl.MaxContextLen, policy.MaxFieldLen)
	assert.Equal(t, hitl.MaxAssignees, policy.MaxEscalateTo)
}
