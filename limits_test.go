package hitl_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hitlbot/hitl"
)

// TestOperationLimits: an operation's description becomes a question's
// text, its fields are shown as a question's context, and an escalation's
// people become its assignees, so each is bounded as those are.
func TestOperationLimits(t *testing.T) {
	assert.Equal(t, hitl.MaxQuestionLen, hitl.MaxDescriptionLen)
	assert.Equal(t, hitl.MaxContextLen, hitl.MaxFieldLen)
	assert.Equal(t, hitl.MaxAssignees, hitl.MaxEscalateTo)
}
