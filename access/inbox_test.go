package access_test

import (
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/auth"
	"github.com/stretchr/testify/assert"
)

// Who a question waits on in the web inbox: one row per rule.
func TestInInbox(t *testing.T) {
	rules := access.Access{}
	alice := auth.TokenPrincipal("alice", []auth.Scope{auth.ScopeAnswer}, "U0ALICE")
	alice.Groups = []string{"S0OPS"}
	bare := auth.TokenPrincipal("bob", []auth.Scope{auth.ScopeAnswer}, "")
	ops := auth.TokenPrincipal("ops", []auth.Scope{auth.ScopeControl}, "")
	local := auth.LocalPrincipal("")
	admin := access.Access{Admins: []string{"U0ADM"}}.SlackPrincipal("U0ADM", nil)
	esc := access.Access{Answerers: []string{"U0ALICE"}}.SlackPrincipal("U0ESC", nil) // answers only what is theirs
	now := time.Now()
	q := func(touch func(*hitl.Question)) *hitl.Question {
		q := &hitl.Question{ID: "q_1", RunID: "run", Status: hitl.StatusPending, Asker: "api:ci", CreatedAt: now}
		if touch != nil {
			touch(q)
		}
		return q
	}
	for _, tc := range []struct {
		name     string
		p        auth.Principal
		q        *hitl.Question
		assigned bool
		want     bool
	}{
		{"an unassigned question waits on whoever answers", alice, q(nil), false, true},
		{"an unassigned question waits on a token without a Slack user that answers", bare, q(nil), false, true},
		{"an unassigned question is not assigned to me", alice, q(nil), true, false},
		{"a question assigned to me waits on me", alice, q(func(q *hitl.Question) { q.Assignees = []string{"U0ALICE"} }), true, true},
		{"a question assigned to my group waits on me", alice, q(func(q *hitl.Question) { q.Assignees = []string{"S0OPS"} }), false, true},
		{"a question assigned to someone else does not", alice, q(func(q *hitl.Question) { q.Assignees = []string{"U0BOB"} }), false, false},
		{"a question escalated to me waits on me", alice, q(func(q *hitl.Question) { q.Assignees, q.EscalatedTo = []string{"U0BOB"}, []string{"U0ALICE"} }), true, true},
		{"a question escalated to my group waits on me", alice, q(func(q *hitl.Question) { q.Assignees, q.EscalatedTo = []string{"U0BOB"}, []string{"S0OPS"} }), true, true},
		{"an unassigned question escalated to me is in my assigned list", alice, q(func(q *hitl.Question) { q.EscalatedTo = []string{"U0ALICE"} }), true, true},
		{"an unassigned question escalated to someone else still waits on whoever answers", bare, q(func(q *hitl.Question) { q.EscalatedTo = []string{"U0BOB"} }), false, true},
		{"an unassigned question escalated to me waits on me, though I answer nothing else", esc, q(func(q *hitl.Question) { q.EscalatedTo = []string{"U0ESC"} }), false, true},
		{"nor does an unassigned one for someone who answers only what is theirs", esc, q(nil), false, false},
		{"a question assigned to someone else is not in an admin's inbox (an admin may answer it)", admin, q(func(q *hitl.Question) { q.Assignees = []string{"U0BOB"} }), false, false},
		{"a question escalated to someone else is not mine", alice, q(func(q *hitl.Question) { q.Assignees, q.EscalatedTo = []string{"U0CAROL"}, []string{"U0BOB"} }), false, false},
		{"a question I asked (my Slack user) never waits on me", alice, q(func(q *hitl.Question) { q.AskerUser = "U0ALICE" }), false, false},
		{"a question my token asked never waits on me", bare, q(func(q *hitl.Question) { q.Asker = "api:bob" }), false, false},
		{"a settled question waits on nobody", alice, q(func(q *hitl.Question) { q.Status = hitl.StatusAnswered }), false, false},
		{"a control-only token has no queue", ops, q(nil), false, false},
		{"an approval whose approvers leave me out does not", alice, q(func(q *hitl.Question) { q.Approvers = []string{"U0BOB"} }), false, false},
		{"the local person's inbox holds every pending question", local, q(func(q *hitl.Question) { q.Asker = "local" }), false, true},
		{"the local person's inbox holds assigned ones too", local, q(func(q *hitl.Question) { q.Asker = "local"; q.Assignees = []string{"U0BOB"} }), false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, rules.InInbox(tc.p, tc.q, tc.assigned))
			f, empty := rules.InboxFilter(tc.p, tc.assigned)
			if tc.want {
				assert.False(t, empty)
				assert.True(t, f.Match(tc.q), "the inbox's list holds what waits on the person")
			}
		})
	}
}
