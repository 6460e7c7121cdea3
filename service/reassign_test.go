package service_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// deployRule asks its approvers, reminds at 5 minutes and escalates to
// U0ESC at 20 (its settings win over the approval type's).
var deployRule = hitl.Rule{Name: "deploys", OpType: "deploy", Effect: hitl.EffectAsk, Approvers: []string{"U0ANS", "S0OPS"},
	ReminderPolicy: hitl.ReminderPolicy{Every: []hitl.Duration{hitl.Duration(5 * time.Minute)},
		EscalateAfter: hitl.Duration(20 * time.Minute), EscalateTo: []string{"U0ESC"}}}

// newReminding is a service with the access table's rules, the deploy
// rule, approvals reminded at 10 minutes and escalated to U0BOB at 12
// (before their 15-minute timeout), blocking questions escalated to U0ESC
// at 10.
func newReminding(t *testing.T) (*service.Service, *clocktest.Clock) {
	t.Helper()
	clock := clocktest.New(t0)
	svc := service.NewService(memstore.New(), service.ServiceConfig{Notifier: notify.New(), Clock: clock, Access: slackRules,
		Reminders: hitl.ReminderPolicies{
			hitl.Approval: {Every: []hitl.Duration{hitl.Duration(10 * time.Minute)}, EscalateAfter: hitl.Duration(12 * time.Minute), EscalateTo: []string{"U0BOB"}},
			hitl.Blocking: {EscalateAfter: hitl.Duration(10 * time.Minute), EscalateTo: []string{"U0ESC"}, EscalationChannel: "C0ESC"},
		}})
	require.NoError(t, svc.Policies.LoadPolicy(context.Background(), []hitl.Rule{deployRule}))
	return svc, clock
}

var hour = 60.0

// askKind asks a question of the access table's kinds, or "deploy": an
// approval the deploy rule asked.
func askKind(t *testing.T, svc *service.Service, kind string) *hitl.Question {
	t.Helper()
	if kind == "deploy" {
		out, err := svc.Policies.RequestOperation(auth.WithPrincipal(context.Background(), asker), hitl.ApprovalRequest{RunID: "run-1",
			TimeoutMinutes: &hour, Operation: hitl.Operation{Type: "deploy", Description: "Deploy v2"}})
		require.NoError(t, err)
		return out.Question
	}
	k := kinds[kind]
	q, _, err := svc.Questions.Create(auth.WithPrincipal(context.Background(), k.by), "run-1", k.n)
	require.NoError(t, err)
	return q
}

// TestReassignTable: who may hand a question to whom. Whoever may answer
// may hand it on, only to people who may answer it once it is theirs.
func TestReassignTable(t *testing.T) {
	rows := []struct {
		who   string
		p     auth.Principal
		kind  string
		to    []string
		code  string // "" when allowed
		cause string
	}{
		{"answer token", answerer, "text", []string{"U0BOB"}, "", ""},
		{"Slack answerer", slackAns, "text", []string{"S0TEAM", "U0BOB"}, "", ""},
		{"alice, assigned", slackAli, "assigned to alice", []string{"U0BOB"}, "", ""},
		{"Slack admin", slackAdm, "assigned to alice", []string{"U0BOB"}, "", ""},
		{"the asker", asker, "text", []string{"U0BOB"}, fault.EFORBIDDEN, "api:ci lacks the answer scope"},
		{"Slack stranger", slackBob, "text", []string{"U0ANS"}, fault.EFORBIDDEN, "not one of the Slack answerers"},
		{"Slack answerer, not assigned", slackAns, "assigned to alice", []string{"U0BOB"}, fault.EFORBIDDEN, "not one of them"},
		{"answer token", answerer, "asked by alice", []string{"U0ALICE"}, fault.EFORBIDDEN, "cannot be handed to U0ALICE, who may not answer it: slack:U0ALICE asked"},
		{"approver", slackAns, "deploy", []string{"U0BOB"}, fault.EFORBIDDEN, "not one of the approvers"},
		{"approver", slackAns, "deploy", []string{"S0TEAM"}, fault.EFORBIDDEN, "not one of its approvers"},
		{"approver", slackAns, "deploy", []string{"S0OPS"}, "", ""},
		{"admin token", admin, "deploy", []string{"U0ANS"}, fault.EFORBIDDEN, "not one of the approvers"}, // approvers bind admins too
		{"answer token", answerer, "text", []string{"bob"}, fault.EINVALID, "is not a Slack user"},
		{"answer token", answerer, "text", nil, fault.EINVALID, "name the Slack users"},
	}
	for _, r := range rows {
		t.Run(fmt.Sprintf("%s hands %s to %v: %q", r.who, r.kind, r.to, r.code), func(t *testing.T) {
			svc, _ := newReminding(t)
			q := askKind(t, svc, r.kind)
			got, err := svc.Questions.Reassign(auth.WithPrincipal(context.Background(), r.p), q.ID, r.to)
			if r.code != "" {
				require.Equal(t, r.code, fault.Code(err), "%v", err)
				assert.Contains(t, fault.Message(err), r.cause)
				still, err := svc.Questions.Question(auth.WithPrincipal(context.Background(), admin), q.ID)
				require.NoError(t, err)
				assert.Equal(t, q.Assignees, still.Assignees, "a refused reassignment changes nothing")
				if r.code == fault.EFORBIDDEN {
					evs, _, err := svc.Log.Events(auth.WithPrincipal(context.Background(), admin), 0, 0)
					require.NoError(t, err)
					last := evs[len(evs)-1]
					assert.Equal(t, hitl.EventRefused, last.Type, "a refusal is audited")
					assert.Equal(t, auth.ActionReassign, last.Action)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, r.to, got.Assignees, "the new assignees replace the old")
			assert.Equal(t, handedBy(r.p), got.HandedBy)
			evs, _, err := svc.Log.Events(auth.WithPrincipal(context.Background(), admin), 0, 0)
			require.NoError(t, err)
			last := evs[len(evs)-1]
			assert.Equal(t, hitl.EventQuestionReassigned, last.Type, "audited")
			assert.Equal(t, r.p.ID, last.Actor)
			assert.Equal(t, q.Assignees, last.HandedFrom, "the audit names whom it was taken from")
		})
	}
}

func handedBy(p auth.Principal) string {
	if p.SlackUser != "" {
		return p.SlackUser
	}
	return p.ID
}

func TestReassignHandsTheRightToAnswer(t *testing.T) {
	svc, _ := newReminding(t)
	q := askKind(t, svc, "assigned to alice")
	_, err := svc.Questions.Reassign(auth.WithPrincipal(context.Background(), slackAli), q.ID, []string{"U0BOB"})
	require.NoError(t, err)
	_, err = svc.Questions.Answer(auth.WithPrincipal(context.Background(), slackAli), q.ID, hitl.Response{Value: true})
	require.Equal(t, fault.EFORBIDDEN, fault.Code(err), "the old assignee lost it: %v", err)
	bob := slackRules.SlackPrincipal("U0BOB", nil) // not an answerer: assignment is their right
	_, err = svc.Questions.Answer(auth.WithPrincipal(context.Background(), bob), q.ID, hitl.Response{Value: true})
	require.NoError(t, err)
	_, err = svc.Questions.Reassign(auth.WithPrincipal(context.Background(), bob), q.ID, []string{"U0ANS"})
	require.Equal(t, fault.ECONFLICT, fault.Code(err), "a settled question is handed to nobody")
}

// TestEscalationAddsAnswerers: rows for the rule that people escalation
// added may answer as if assigned, approvers or not, and only after it.
func TestEscalationAddsAnswerers(t *testing.T) {
	esc := slackRules.SlackPrincipal("U0ESC", nil) // neither answerer nor assigned
	rows := []struct {
		kind  string
		after time.Duration // when the sweep runs
		p     auth.Principal
		allow bool
	}{
		{"assigned to alice", 9 * time.Minute, esc, false},
		{"assigned to alice", 10 * time.Minute, esc, true},
		{"deploy", 15 * time.Minute, esc, false}, // the rule's 20 minutes win over the type's 12
		{"deploy", 20 * time.Minute, esc, true},
		{"deploy", 20 * time.Minute, slackRules.SlackPrincipal("U0BOB", nil), false}, // the type's escalate_to lost to the rule's
		{"approval", 11 * time.Minute, slackRules.SlackPrincipal("U0BOB", nil), false},
		{"approval", 12 * time.Minute, slackRules.SlackPrincipal("U0BOB", nil), true},
	}
	for _, r := range rows {
		t.Run(fmt.Sprintf("%s after %s: %s allowed %v", r.kind, r.after, r.p.ID, r.allow), func(t *testing.T) {
			svc, clock := newReminding(t)
			q := askKind(t, svc, r.kind)
			clock.Add(r.after)
			_, err := svc.Questions.SweepReminders(context.Background())
			require.NoError(t, err)
			resp := hitl.Response{Value: true}
			if q.ResponseType == hitl.ApprovalResponse {
				resp = hitl.Response{Value: "approve"}
			}
			_, err = svc.Questions.Answer(auth.WithPrincipal(context.Background(), r.p), q.ID, resp)
			if r.allow {
				require.NoError(t, err)
				return
			}
			require.Equal(t, fault.EFORBIDDEN, fault.Code(err), "%v", err)
		})
	}
}
