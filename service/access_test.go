package service_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The principals of the authorization table.
var (
	asker      = auth.TokenPrincipal("ci", nil, "") // ask only: the agent that asks
	other      = auth.TokenPrincipal("other", nil, "")
	answerer   = auth.TokenPrincipal("answerer", []auth.Scope{auth.ScopeAnswer}, "")
	admin      = auth.TokenPrincipal("admin", []auth.Scope{auth.ScopeAdmin}, "")
	alice      = auth.TokenPrincipal("alice", []auth.Scope{auth.ScopeAsk, auth.ScopeAnswer}, "U0ALICE")
	slackRules = access.Access{Answerers: []string{"U0ANS", "U0ALICE"}, Admins: []string{"U0ADM"}}
	slackAns   = slackRules.SlackPrincipal("U0ANS", nil)
	slackBob   = slackRules.SlackPrincipal("U0BOB", nil) // neither answerer nor admin
	slackAli   = slackRules.SlackPrincipal("U0ALICE", nil)
	slackAdm   = slackRules.SlackPrincipal("U0ADM", nil)
)

// kinds are the questions of the table, all asked by `asker` except
// "asked by alice", asked with alice's token (who is Slack user U0ALICE).
var kinds = map[string]struct {
	by auth.Principal
	n  hitl.NewQuestion
}{
	"text":              {asker, hitl.NewQuestion{Question: "Which database?"}},
	"approval":          {asker, hitl.NewQuestion{Question: "Deploy?", Type: hitl.Approval}},
	"assigned to alice": {asker, hitl.NewQuestion{Question: "Ship?", ResponseType: hitl.BooleanResponse, Assignees: []string{"U0ALICE"}}},
	"asked by alice":    {alice, hitl.NewQuestion{Question: "Merge?", Type: hitl.Approval}},
}

// TestAuthorizationTable runs principal × action × question kind through
// the root service: the one place the slackRules live. The HTTP and Slack edges
// run their rows of it end to end in their own packages.
func TestAuthorizationTable(t *testing.T) {
	type row struct {
		who    string
		p      auth.Principal
		act    auth.Action
		kind   string
		allow  bool
		reason string // part of the refusal's message
	}
	rows := []row{
		// Nobody answers their own question; an approval needs a person.
		{"asker", asker, auth.ActionAnswer, "approval", false, "lacks the answer scope"},
		{"asker", asker, auth.ActionAnswer, "text", false, "lacks the answer scope"},
		{"alice's token", alice, auth.ActionAnswer, "asked by alice", false, "api:alice asked"},
		{"alice in Slack", slackAli, auth.ActionAnswer, "asked by alice", false, "slack:U0ALICE asked"},
		{"another agent", other, auth.ActionAnswer, "text", false, "api:other lacks the answer scope"},
		{"answer token", answerer, auth.ActionAnswer, "approval", true, ""},
		{"answer token", answerer, auth.ActionAnswer, "asked by alice", true, ""},
		{"admin token", admin, auth.ActionAnswer, "approval", true, ""},
		{"admin token", admin, auth.ActionAnswer, "assigned to alice", true, ""},
		{"Slack answerer", slackAns, auth.ActionAnswer, "text", true, ""},
		{"Slack stranger", slackBob, auth.ActionAnswer, "text", false, "slack:U0BOB is not one of the Slack answerers"},
		{"Slack admin", slackAdm, auth.ActionAnswer, "assigned to alice", true, ""},
		// Assignees apply on every edge the same way.
		{"answer token without Slack user", answerer, auth.ActionAnswer, "assigned to alice", false, "is assigned to U0ALICE; api:answerer is not one of them"},
		{"alice's token", alice, auth.ActionAnswer, "assigned to alice", true, ""},
		{"alice in Slack", slackAli, auth.ActionAnswer, "assigned to alice", true, ""},
		{"Slack answerer, not assigned", slackAns, auth.ActionAnswer, "assigned to alice", false, "not one of them"},
		// Cancel: the asker, or whoever may answer.
		{"asker", asker, auth.ActionCancel, "text", true, ""},
		{"another agent", other, auth.ActionCancel, "text", false, "api:other lacks the answer scope"},
		{"answer token", answerer, auth.ActionCancel, "approval", true, ""},
		{"Slack stranger", slackBob, auth.ActionCancel, "text", false, "not one of the Slack answerers"},
		// Read: the asker and those who answer.
		{"asker", asker, auth.ActionRead, "text", true, ""},
		{"another agent", other, auth.ActionRead, "text", false, "api:other did not ask"},
		{"answer token", answerer, auth.ActionRead, "text", true, ""},
		// Receive: the asker only.
		{"asker", asker, auth.ActionReceive, "text", true, ""},
		{"another agent", other, auth.ActionReceive, "text", false, "only api:ci, which asked"},
		{"answer token", answerer, auth.ActionReceive, "text", false, "only api:ci, which asked"},
		{"admin token", admin, auth.ActionReceive, "text", false, "only api:ci, which asked"},
	}
	for _, r := range rows {
		name := fmt.Sprintf("%s %s %s: allowed %v", r.who, r.act, r.kind, r.allow)
		t.Run(name, func(t *testing.T) {
			st := memstore.New()
			svc := service.NewService(st, service.ServiceConfig{Notifier: notify.New(), Clock: clocktest.New(t0), Access: slackRules})
			k := kinds[r.kind]
			q, _, err := svc.Questions.Create(auth.WithPrincipal(context.Background(), k.by), "run-1", k.n)
			require.NoError(t, err)
			ctx := auth.WithPrincipal(context.Background(), r.p)
			switch r.act {
			case auth.ActionAnswer:
				resp := hitl.Response{Value: "yes"}
				_, err = svc.Questions.Answer(ctx, q.ID, resp)
			case auth.ActionCancel:
				_, err = svc.Questions.Cancel(ctx, q.ID, "no longer needed")
			case auth.ActionRead:
				_, err = svc.Questions.Question(ctx, q.ID)
			case auth.ActionReceive:
				_, err = svc.Questions.Answer(auth.WithPrincipal(context.Background(), admin), q.ID, hitl.Response{Value: "yes"})
				require.NoError(t, err)
				_, err = svc.Questions.Receive(ctx, q.ID)
			}
			if r.allow {
				require.NoError(t, err)
				return
			}
			require.Equal(t, fault.EFORBIDDEN, fault.Code(err), "%v", err)
			assert.Contains(t, fault.Message(err), r.reason)
			// Every refusal is audited, and only admins read the audit.
			evs, _, err := svc.Log.Events(auth.WithPrincipal(context.Background(), admin), 0, 0)
			require.NoError(t, err)
			last := evs[len(evs)-1]
			assert.Equal(t, hitl.EventRefused, last.Type)
			assert.Equal(t, r.p.ID, last.Actor)
			assert.Equal(t, q.ID, last.QuestionID)
			assert.Equal(t, r.act, last.Action)
			assert.Contains(t, last.Reason, r.reason)
			seen, _, err := svc.Log.Events(auth.WithPrincipal(context.Background(), answerer), 0, 0)
			require.NoError(t, err)
			for _, ev := range seen {
				assert.NotEqual(t, hitl.EventRefused, ev.Type, "refusals are for admins")
			}
			if r.act != auth.ActionRead && r.act != auth.ActionReceive {
				still, err := svc.Questions.Question(auth.WithPrincipal(context.Background(), admin), q.ID)
				require.NoError(t, err)
				assert.True(t, still.Pending(), "a refused action changes nothing")
			}
		})
	}
}

func TestPrincipalsWithoutAnswerSeeOnlyTheirOwn(t *testing.T) {
	svc := service.NewService(memstore.New(), service.ServiceConfig{Notifier: notify.New(), Clock: clocktest.New(t0)})
	as := func(p auth.Principal) context.Context { return auth.WithPrincipal(context.Background(), p) }
	mine, _, err := svc.Questions.Create(as(asker), "run-1", hitl.NewQuestion{Question: "Mine?"})
	require.NoError(t, err)
	_, _, err = svc.Questions.Create(as(other), "run-2", hitl.NewQuestion{Question: "Theirs?"})
	require.NoError(t, err)

	t.Run("lists hold only their own questions", func(t *testing.T) {
		qs, err := svc.Questions.Questions(as(asker), hitl.QuestionFilter{Status: hitl.StatusPending})
		require.NoError(t, err)
		require.Len(t, qs, 1)
		assert.Equal(t, mine.ID, qs[0].ID)
		all, err := svc.Questions.Questions(as(answerer), hitl.QuestionFilter{Status: hitl.StatusPending})
		require.NoError(t, err)
		assert.Len(t, all, 2, "the answer scope sees everything")
	})
	t.Run("the run shows only their own questions", func(t *testing.T) {
		rs, err := svc.Runs.RunState(as(asker), "run-1")
		require.NoError(t, err)
		assert.Equal(t, mine.ID, rs.PendingQuestion.QuestionID)
	})
	t.Run("the event log holds only their own events", func(t *testing.T) {
		evs, last, err := svc.Log.Events(as(asker), 0, 0)
		require.NoError(t, err)
		require.Len(t, evs, 1)
		assert.Equal(t, mine.ID, evs[0].QuestionID)
		assert.Equal(t, uint64(2), last, "the cursor moves past what it may not see")
		_, err = svc.Runs.RunState(as(asker), "run-2")
		assert.Equal(t, fault.EFORBIDDEN, fault.Code(err), "another's run is not theirs to read")
	})
	t.Run("a principal without any scope sees nothing", func(t *testing.T) {
		_, err := svc.Questions.Questions(as(auth.Principal{ID: "api:nobody"}), hitl.QuestionFilter{})
		assert.Equal(t, fault.EFORBIDDEN, fault.Code(err))
		_, _, err = svc.Questions.Create(context.Background(), "run-1", hitl.NewQuestion{Question: "anonymous?"})
		assert.Equal(t, fault.EFORBIDDEN, fault.Code(err), "no principal, no question")
	})
}

func TestLocalPersonAnswersWhatTheMachineAsked(t *testing.T) {
	svc := service.NewService(memstore.New(), service.ServiceConfig{Notifier: notify.New(), Clock: clocktest.New(t0)})
	q, _, err := svc.Questions.Create(auth.WithPrincipal(context.Background(), auth.LocalPrincipal("agent")), "run-1",
		hitl.NewQuestion{Question: "Deploy?", Type: hitl.Approval})
	require.NoError(t, err)
	got, err := svc.Questions.Answer(auth.WithPrincipal(context.Background(), auth.LocalPrincipal("alice")), q.ID, hitl.Response{Value: "approve"})
	require.NoError(t, err, "tokenless mode trusts the machine: hitl ask in one terminal, hitl answer in another")
	assert.Equal(t, "local:alice", got.RespondedBy)
}

func TestApprovalCannotApproveItselfByDefault(t *testing.T) {
	n := hitl.NewQuestion{Question: "Deploy?", Type: hitl.Approval, DefaultResponse: &hitl.Response{Value: "approve"}}
	ctx := auth.WithPrincipal(context.Background(), asker)
	svc := service.NewService(memstore.New(), service.ServiceConfig{Notifier: notify.New(), Clock: clocktest.New(t0)})
	_, _, err := svc.Questions.Create(ctx, "run-1", n)
	require.Equal(t, fault.EINVALID, fault.Code(err))
	assert.Contains(t, fault.Message(err), "defaultResponse")
	assert.Contains(t, fault.Message(err), "allow_default_approve")

	deny := n
	deny.DefaultResponse = &hitl.Response{Value: "deny"}
	_, _, err = svc.Questions.Create(ctx, "run-1", deny)
	assert.NoError(t, err, "defaulting to deny is safe")

	allowed := service.NewService(memstore.New(), service.ServiceConfig{Notifier: notify.New(), Clock: clocktest.New(t0), Access: access.Access{AllowDefaultApprove: true}})
	_, _, err = allowed.Questions.Create(ctx, "run-1", n)
	assert.NoError(t, err, "config allows it")
}

// TestAuthorizationRunsAndPolicy is the table's rows for steering and
// policy: who may steer a run, report for it, set its threshold, set the
// policy and revoke a learned rule.
func TestAuthorizationRunsAndPolicy(t *testing.T) {
	controllerTok := auth.TokenPrincipal("ops", []auth.Scope{auth.ScopeControl}, "")
	slackCtl := access.Access{Controllers: []string{"U0CTL"}}.SlackPrincipal("U0CTL", nil)
	slackNotCtl := access.Access{Controllers: []string{"U0CTL"}}.SlackPrincipal("U0ANS", nil)
	slackAnswererNoList := access.Access{}.SlackPrincipal("U0ANY", nil) // no controllers configured: answerers steer
	type row struct {
		who   string
		p     auth.Principal
		act   string
		allow bool
	}
	rows := []row{
		{"control token", controllerTok, "steer", true},
		{"admin token", admin, "steer", true},
		{"answer token", answerer, "steer", false},
		{"the agent itself", asker, "steer", false},
		{"Slack controller", slackCtl, "steer", true},
		{"Slack answerer, controllers configured", slackNotCtl, "steer", false},
		{"Slack answerer, no controllers configured", slackAnswererNoList, "steer", true},
		{"the agent that started the run", asker, "report", true},
		{"another agent", other, "report", false},
		{"admin token", admin, "report", true},
		{"the agent that started the run", asker, "threshold", true},
		{"another agent", other, "threshold", false},
		{"control token", controllerTok, "threshold", true},
		// A run belongs to its owner (more rows: TestRunOwnershipTable).
		{"the agent that started the run", asker, "ask", true},
		{"another agent", other, "ask", false},
		{"answer token", answerer, "ask", false},
		{"control token", controllerTok, "report", false},
		{"the agent that started the run", asker, "read", true},
		{"another agent", other, "read", false},
		{"answer token", answerer, "read", true},
		{"control token", controllerTok, "read", true},
		{"admin token", admin, "read", true},
		{"admin token", admin, "set policy", true},
		{"answer token", answerer, "set policy", false},
		{"control token", controllerTok, "set policy", false},
		{"answer token", answerer, "revoke", true},
		{"the agent itself", asker, "revoke", false},
	}
	for _, r := range rows {
		t.Run(fmt.Sprintf("%s %s: allowed %v", r.who, r.act, r.allow), func(t *testing.T) {
			st := memstore.New()
			svc := service.NewService(st, service.ServiceConfig{Notifier: notify.New(), Clock: clocktest.New(t0)})
			require.NoError(t, svc.Policies.LoadPolicy(context.Background(), nil))
			_, err := svc.Runs.Checkpoint(auth.WithPrincipal(context.Background(), asker), steer.StateEvent{RunID: "loop-1",
				Stack: []steer.StackEntry{{ID: "loop-1", Iter: 1}}})
			require.NoError(t, err)
			ctx := auth.WithPrincipal(context.Background(), r.p)
			var refused bool
			switch r.act {
			case "steer":
				msgs, err := svc.Runs.Control(ctx, steer.NewRequest("req-"+r.who, steer.CommandPause, "loop-1", t0, steer.ControlPayload{}))
				require.NoError(t, err)
				code, failed := msgs[len(msgs)-1].Failed()
				refused = failed && code == steer.CodeForbidden
			case "report":
				_, err = svc.Runs.Checkpoint(ctx, steer.StateEvent{RunID: "loop-1", Stack: []steer.StackEntry{{ID: "loop-1", Iter: 2}}})
				refused = fault.Code(err) == fault.EFORBIDDEN
			case "ask":
				_, _, err = svc.Questions.Create(ctx, "loop-1", hitl.NewQuestion{Question: "In your run?"})
				refused = fault.Code(err) == fault.EFORBIDDEN
			case "read":
				_, err = svc.Runs.RunRecord(ctx, "loop-1")
				refused = fault.Code(err) == fault.EFORBIDDEN
			case "threshold":
				n := 2
				_, err = svc.Runs.SetThreshold(ctx, "loop-1", &n)
				refused = fault.Code(err) == fault.EFORBIDDEN
			case "set policy":
				_, err = svc.Policies.SetPolicy(ctx, nil)
				refused = fault.Code(err) == fault.EFORBIDDEN
			case "revoke":
				_, err = svc.Policies.RevokeRule(ctx, "r_nope")
				refused = fault.Code(err) == fault.EFORBIDDEN
			}
			assert.Equal(t, !r.allow, refused, "%v", err)
			if refused {
				evs, _, err := svc.Log.Events(auth.WithPrincipal(context.Background(), admin), 0, 0)
				require.NoError(t, err)
				var audited bool
				for _, ev := range evs {
					audited = audited || (ev.Type == hitl.EventRefused && ev.Actor == r.p.ID)
				}
				assert.True(t, audited, "every refusal is audited")
			}
		})
	}
}
