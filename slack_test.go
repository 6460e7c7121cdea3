package hitl_test

import (
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/auth"
	"github.com/stretchr/testify/assert"
)

func TestAccessSlackRights(t *testing.T) {
	a := access.Access{Answerers: []string{"U1", "S9"}, Admins: []string{"UADMIN"}}
	assigned := &hitl.Question{ID: "q_1", Asker: "api:ci", Assignees: []string{"U2", "S5"}}
	open := &hitl.Question{ID: "q_2", Asker: "api:ci"}
	for name, tc := range map[string]struct {
		q      *hitl.Question
		user   string
		groups []string
		want   bool
	}{
		"admin may answer an assigned question": {assigned, "UADMIN", nil, true},
		"assignee may answer":                   {assigned, "U2", nil, true},
		"member of assigned group may answer":   {assigned, "U7", []string{"S5"}, true},
		"answerer not assigned is refused":      {assigned, "U1", nil, false},
		"answerer may answer an open question":  {open, "U1", nil, true},
		"member of answerer group may answer":   {open, "U8", []string{"S9"}, true},
		"stranger is refused":                   {open, "U3", nil, false},
	} {
		err := a.Authorize(a.SlackPrincipal(tc.user, tc.groups), auth.ActionAnswer, tc.q)
		assert.Equal(t, tc.want, err == nil, "%s: %v", name, err)
	}
	anyone := access.Access{}
	assert.NoError(t, anyone.Authorize(anyone.SlackPrincipal("U3", nil), auth.ActionAnswer, open), "no answerers configured: anyone")
	assert.Equal(t, []string{"S9", "S5"}, a.Groups(assigned))
}

func TestAccessWaitsOn(t *testing.T) {
	a := access.Access{Admins: []string{"UADMIN"}}
	assigned := &hitl.Question{Assignees: []string{"U2", "S5"}}
	assert.True(t, a.WaitsOn(assigned, "U2", nil), "the assignee")
	assert.True(t, a.WaitsOn(assigned, "U7", []string{"S5"}), "a member of the assigned group")
	assert.False(t, a.WaitsOn(assigned, "UADMIN", nil), "an admin may answer, but it does not wait on them")
	assert.True(t, a.WaitsOn(&hitl.Question{}, "U3", nil), "an open question waits on anyone allowed")
	assert.False(t, access.Access{Answerers: []string{"U3"}}.WaitsOn(&hitl.Question{}, "U4", nil), "not on someone who answers only what is theirs")
	escalated := &hitl.Question{Assignees: []string{"U2"}, EscalatedTo: []string{"U9", "S6"}}
	assert.True(t, a.WaitsOn(escalated, "U9", nil), "a person escalation added")
	assert.True(t, a.WaitsOn(escalated, "U8", []string{"S6"}), "a member of a group escalation added")
	assert.False(t, a.WaitsOn(escalated, "U3", nil), "not on others, while it has assignees")
	assert.True(t, a.WaitsOn(&hitl.Question{EscalatedTo: []string{"U9"}}, "U3", nil), "an open question escalated stays open to anyone allowed")
	assert.False(t, a.WaitsOn(&hitl.Question{AskerUser: "U3"}, "U3", nil), "not on the person who asked it")
}
