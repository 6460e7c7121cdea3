package hitl_test

import (
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/stretchr/testify/assert"
)

// TestListed: whose lists a pending question appears in, one row per
// rule.
func TestListed(t *testing.T) {
	for _, tc := range []struct {
		name       string
		q          hitl.Question
		listed     []string
		unassigned bool
	}{
		{"an unassigned question is in nobody's list but the unassigned one", hitl.Question{}, nil, true},
		{"an assigned one is in its assignees' lists", hitl.Question{Assignees: []string{"U0A", "S0G"}}, []string{"U0A", "S0G"}, false},
		{"an escalated one is in the escalated people's lists too, after the assignees",
			hitl.Question{Assignees: []string{"U0A"}, EscalatedTo: []string{"U0ESC", "S0OPS"}}, []string{"U0A", "U0ESC", "S0OPS"}, false},
		{"each id once, though assigned and escalated to",
			hitl.Question{Assignees: []string{"U0A", "S0OPS"}, EscalatedTo: []string{"S0OPS", "U0A", "U0ESC"}}, []string{"U0A", "S0OPS", "U0ESC"}, false},
		{"an escalated question without assignees stays unassigned: escalation takes it from nobody",
			hitl.Question{EscalatedTo: []string{"U0ESC"}}, []string{"U0ESC"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.q.Clone()
			assert.Equal(t, tc.listed, tc.q.Listed())
			assert.Equal(t, tc.unassigned, tc.q.Unassigned())
			assert.Equal(t, before, &tc.q, "Listed changes nothing")
		})
	}
}
