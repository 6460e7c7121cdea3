package service_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReassignTargets: rows for whom a question may be handed to, as it
// will be once theirs (Access.MayTake on the question with its new
// assignees), and for the list of people named.
func TestReassignTargets(t *testing.T) {
	many := make([]string, hitl.MaxAssignees+1)
	for i := range many {
		many[i] = fmt.Sprintf("U0P%02d", i)
	}
	for _, tc := range []struct {
		name  string
		kind  string
		after time.Duration // the reminder sweep runs this late before the handing (0: none)
		to    []string
		want  []string // the assignees afterwards; nil when refused
		code  string
		cause string
	}{
		{"a member of an approver group may take an approval (the directory says so)", "deploy", 0, []string{"U0MEM"}, []string{"U0MEM"}, "", ""},
		{"escalation's right goes with the handing: someone it added is no approver once handed it", "deploy", 20 * time.Minute,
			[]string{"U0ESC"}, nil, fault.EFORBIDDEN, "not one of the approvers"},
		{"each person once, however often named", "text", 0, []string{"U0BOB", "<@U0BOB>", "@U0BOB"}, []string{"U0BOB"}, "", ""},
		{"at most MaxAssignees people or groups", "text", 0, many, nil, fault.EINVALID, "at most"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc, clock := newReminding(t)
			svc.SetDirectory(groupDirectory{groups: map[string][]string{"S0OPS": {"U0MEM"}}})
			q := askKind(t, svc, tc.kind)
			if tc.after > 0 {
				clock.Add(tc.after)
				_, err := svc.Questions.SweepReminders(context.Background())
				require.NoError(t, err)
				esc, err := svc.Questions.Question(auth.WithPrincipal(context.Background(), admin), q.ID)
				require.NoError(t, err)
				require.Contains(t, esc.EscalatedTo, tc.to[0], "escalated before it is handed")
			}
			got, err := svc.Questions.Reassign(auth.WithPrincipal(context.Background(), slackAns), q.ID, tc.to)
			if tc.code != "" {
				require.Equal(t, tc.code, fault.Code(err), "%v", err)
				assert.Contains(t, fault.Message(err), tc.cause)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got.Assignees)
		})
	}
}
