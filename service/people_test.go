package service_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// groupDirectory is a hand-written hitl.Directory: group → members; a
// group in failing cannot be read.
type groupDirectory struct {
	groups  map[string][]string
	failing map[string]bool
}

var _ hitl.Directory = groupDirectory{}

func (d groupDirectory) GroupMembers(_ context.Context, group string) ([]string, error) {
	if d.failing[group] {
		return nil, errors.New("usergroups.users.list failed")
	}
	return d.groups[group], nil
}

// peopleRules name people, a user group and a token as approvers.
var peopleRules = []hitl.Rule{
	{Name: "two-person-deploys", OpType: "deploy", Effect: hitl.EffectAsk, Approvers: []string{"U0A", "U0B", "S0OPS", "ops"}, Quorum: 2},
	{Name: "ops-restarts", OpType: "restart", Effect: hitl.EffectAsk, Approvers: []string{"S0OPS"}},
}

var peopleAccess = access.Access{Answerers: []string{"U0A", "U0B", "U0MEM", "U0OUT"}}

func newPeopleService(t *testing.T, dir hitl.Directory) *service.Service {
	t.Helper()
	svc := service.NewService(memstore.New(), service.ServiceConfig{Notifier: notify.New(), Clock: clocktest.New(t0), Access: peopleAccess})
	require.NoError(t, svc.Policies.LoadPolicy(context.Background(), peopleRules))
	if dir != nil {
		svc.SetDirectory(dir)
	}
	return svc
}

// approval asks for op through the policy and returns the question.
func approval(t *testing.T, svc *service.Service, op hitl.OpType) *hitl.Question {
	t.Helper()
	out, err := svc.Policies.RequestOperation(auth.WithPrincipal(context.Background(), asker),
		hitl.ApprovalRequest{Operation: hitl.Operation{Type: op, Description: "do " + string(op), Resource: "prod/web"}})
	require.NoError(t, err)
	require.Equal(t, hitl.EffectAsk, out.Effect)
	require.NotNil(t, out.Question)
	return out.Question
}

// approverToken is a token with the answer scope that speaks for user.
func approverToken(name, user string) auth.Principal {
	return auth.TokenPrincipal(name, []auth.Scope{auth.ScopeAnswer}, user)
}

// TestAPersonIsCountedOnce: quorum counts people, whichever token or
// Slack click each approval came through.
func TestAPersonIsCountedOnce(t *testing.T) {
	slack := func(u string) auth.Principal { return peopleAccess.SlackPrincipal(u, nil) }
	rows := []struct {
		name          string
		first, second auth.Principal
		counted       bool // the second approval counts: two people
	}{
		{"two tokens of the same Slack user count once", approverToken("laptop", "U0A"), approverToken("desktop", "U0A"), false},
		{"a token then the same person's Slack click count once", approverToken("laptop", "U0A"), slack("U0A"), false},
		{"a Slack click then the same person's token count once", slack("U0A"), approverToken("laptop", "U0A"), false},
		{"the same token twice counts once", approverToken("laptop", "U0A"), approverToken("laptop", "U0A"), false},
		{"tokens of two people count twice", approverToken("laptop", "U0A"), approverToken("phone", "U0B"), true},
		{"a Slack click and another person's token count twice", slack("U0B"), approverToken("laptop", "U0A"), true},
		{"a token named as approver and a person count twice", approverToken("ops", ""), slack("U0A"), true},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			svc := newPeopleService(t, nil)
			q := approval(t, svc, "deploy")
			require.Equal(t, 2, q.Quorum)
			got, err := svc.Questions.Answer(auth.WithPrincipal(context.Background(), r.first), q.ID, hitl.Response{Value: "approve"})
			require.NoError(t, err)
			require.True(t, got.Pending(), "one approval of two")
			got, err = svc.Questions.Answer(auth.WithPrincipal(context.Background(), r.second), q.ID, hitl.Response{Value: "approve"})
			if r.counted {
				require.NoError(t, err)
				assert.Equal(t, hitl.OutcomeApproved, got.Outcome())
				return
			}
			require.Equal(t, fault.EINVALID, fault.Code(err), "%v", err)
			assert.Contains(t, fault.Message(err), "1 of 2 approvals")
			still, err := svc.Questions.Question(auth.WithPrincipal(context.Background(), admin), q.ID)
			require.NoError(t, err)
			assert.True(t, still.Pending(), "one person is not a quorum of two")
			assert.Len(t, still.Approvals, 1)
		})
	}
}

// TestUserGroupApprovers: a user-group approver or assignee matches its
// members, looked up by the service on every edge (a Slack click and an
// HTTP token with a slack_user alike); without a directory, or when the
// group cannot be read, nobody matches.
func TestUserGroupApprovers(t *testing.T) {
	ops := groupDirectory{groups: map[string][]string{"S0OPS": {"U0MEM"}}}
	rows := []struct {
		name   string
		dir    hitl.Directory
		p      auth.Principal
		kind   string // approver: ops-restarts' approval; assignee: a question assigned to S0OPS
		allow  bool
		reason string
	}{
		{"a member approves in Slack", ops, peopleAccess.SlackPrincipal("U0MEM", nil), "approver", true, ""},
		{"a member approves with a token speaking for them", ops, approverToken("mem", "U0MEM"), "approver", true, ""},
		{"a non-member in Slack is refused", ops, peopleAccess.SlackPrincipal("U0OUT", nil), "approver", false, "is not one of the approvers"},
		{"a non-member's token is refused", ops, approverToken("out", "U0OUT"), "approver", false, "is not one of the approvers"},
		{"a token without a Slack user is in no group", ops, approverToken("ci-bot", ""), "approver", false, "is not one of the approvers"},
		{"without a directory no group matches", nil, approverToken("mem", "U0MEM"), "approver", false, "is not one of the approvers"},
		{"a group that cannot be read matches nobody", groupDirectory{failing: map[string]bool{"S0OPS": true}}, approverToken("mem", "U0MEM"), "approver", false, "is not one of the approvers"},
		{"a member's token answers what is assigned to the group", ops, approverToken("mem", "U0MEM"), "assignee", true, ""},
		{"a non-member's token is not assigned", ops, approverToken("out", "U0OUT"), "assignee", false, "is assigned to S0OPS"},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			svc := newPeopleService(t, r.dir)
			var q *hitl.Question
			if r.kind == "approver" {
				q = approval(t, svc, "restart")
			} else {
				var err error
				q, _, err = svc.Questions.Create(auth.WithPrincipal(context.Background(), asker), "run-1",
					hitl.NewQuestion{Question: "Ship?", ResponseType: hitl.BooleanResponse, Assignees: []string{"S0OPS"}})
				require.NoError(t, err)
			}
			value := "approve"
			if r.kind == "assignee" {
				value = "yes"
			}
			got, err := svc.Questions.Answer(auth.WithPrincipal(context.Background(), r.p), q.ID, hitl.Response{Value: value})
			if r.allow {
				require.NoError(t, err)
				assert.Equal(t, r.p.ID, got.RespondedBy)
				return
			}
			require.Equal(t, fault.EFORBIDDEN, fault.Code(err), "%v", err)
			assert.Contains(t, fault.Message(err), r.reason)
		})
	}
}
