package service_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/policy"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/shell"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var rules = []hitl.Rule{
	{Name: "no-prod-deletes", OpType: hitl.OpFileDelete, Resource: "/srv/prod/*", Effect: hitl.EffectDeny},
	{Name: "two-person-deploys", OpType: "deploy", Resource: "prod/*", Effect: hitl.EffectAsk, Approvers: []string{"U0A", "U0B", "ops"}, Quorum: 2},
	{Name: "safe-git", OpType: hitl.OpShell, Resource: "git status", Effect: hitl.EffectAllow},
	{Name: "critical-asks", Risk: []hitl.Risk{hitl.RiskHigh, hitl.RiskCritical}, Effect: hitl.EffectAsk},
	{Name: "ci-reads-api", OpType: hitl.OpAPICall, Agent: "ci", Resource: "https://api.github.com/*", Effect: hitl.EffectAllow},
	{Name: "tmp-writes", OpType: hitl.OpFileWrite, Resource: "/tmp/*.log", Effect: hitl.EffectAllow},
}

func TestPolicyDecide(t *testing.T) {
	p := hitl.Policy{Rules: rules}
	require.NoError(t, policy.ValidatePolicy(p))
	dec := policy.Decider{Rules: rules, Parse: shell.Parse}
	for name, tc := range map[string]struct {
		op   hitl.Operation
		want hitl.Effect
		rule string
	}{
		"a deny rule matches a glob":              {hitl.Operation{Type: hitl.OpFileDelete, Resource: "/srv/prod/db/data"}, hitl.EffectDeny, "no-prod-deletes"},
		"default: file deletions ask":             {hitl.Operation{Type: hitl.OpFileDelete, Resource: "/tmp/x"}, hitl.EffectAsk, "default"},
		"default: shell asks":                     {hitl.Operation{Type: hitl.OpShell, Resource: "rm -rf build"}, hitl.EffectAsk, "default"},
		"a command prefix on a word boundary":     {hitl.Operation{Type: hitl.OpShell, Resource: "git status --short"}, hitl.EffectAllow, "safe-git"},
		"not a prefix of another word":            {hitl.Operation{Type: hitl.OpShell, Resource: "git statusx"}, hitl.EffectAsk, "default"},
		"default: API calls are allowed":          {hitl.Operation{Type: hitl.OpAPICall, Resource: "https://example.com"}, hitl.EffectAllow, "default"},
		"default: reads are allowed":              {hitl.Operation{Type: hitl.OpFileRead, Resource: "/etc/hosts"}, hitl.EffectAllow, "default"},
		"default: spawning agents is allowed":     {hitl.Operation{Type: hitl.OpSpawnAgent}, hitl.EffectAllow, "default"},
		"default: writes ask (fail safe)":         {hitl.Operation{Type: hitl.OpFileWrite, Resource: "/etc/passwd"}, hitl.EffectAsk, "default"},
		"default: custom types ask (fail safe)":   {hitl.Operation{Type: "rotate_keys"}, hitl.EffectAsk, "default"},
		"risk as a list":                          {hitl.Operation{Type: hitl.OpFileRead, Risk: hitl.RiskCritical}, hitl.EffectAsk, "critical-asks"},
		"the first match wins":                    {hitl.Operation{Type: hitl.OpShell, Resource: "git status", Risk: hitl.RiskHigh}, hitl.EffectAllow, "safe-git"},
		"the agent comes from the token":          {hitl.Operation{Type: hitl.OpAPICall, Resource: "https://api.github.com/repos/x", Agent: "api:ci", Risk: hitl.RiskLow}, hitl.EffectAllow, "ci-reads-api"},
		"another agent does not match":            {hitl.Operation{Type: hitl.OpAPICall, Resource: "https://api.github.com/repos/x", Agent: "api:bot", Risk: hitl.RiskHigh}, hitl.EffectAsk, "critical-asks"},
		"a glob with a suffix":                    {hitl.Operation{Type: hitl.OpFileWrite, Resource: "/tmp/run/app.log"}, hitl.EffectAllow, "tmp-writes"},
		"a glob with a suffix that does not fit":  {hitl.Operation{Type: hitl.OpFileWrite, Resource: "/tmp/app.txt"}, hitl.EffectAsk, "default"},
		"the path decides, not the diff":          {hitl.Operation{Type: hitl.OpFileWrite, Resource: "/etc/passwd", Diffs: []hitl.FileDiff{{Path: "/tmp/run/app.log", Change: hitl.FileModify, Added: 1}}}, hitl.EffectAsk, "default"},
		"a diff does not stop a path's allow":     {hitl.Operation{Type: hitl.OpFileWrite, Resource: "/tmp/run/app.log", Diffs: []hitl.FileDiff{{Path: "/etc/passwd", Change: hitl.FileModify, Removed: 9}}}, hitl.EffectAllow, "tmp-writes"},
		"a quorum rule carries its approvers too": {hitl.Operation{Type: "deploy", Resource: "prod/web"}, hitl.EffectAsk, "two-person-deploys"},
	} {
		t.Run(name, func(t *testing.T) {
			if tc.op.Description == "" {
				tc.op.Description = "x"
			}
			d, err := dec.Decide(tc.op)
			require.NoError(t, err)
			assert.Equal(t, tc.want, d.Effect)
			assert.Equal(t, tc.rule, d.Rule)
		})
	}
	d, err := dec.Decide(hitl.Operation{Type: "deploy", Resource: "prod/web"})
	require.NoError(t, err)
	assert.Equal(t, 2, d.Quorum)
	assert.Equal(t, []string{"U0A", "U0B", "ops"}, d.Approvers)
}

func TestPolicyValidate(t *testing.T) {
	for name, tc := range map[string]struct {
		r    hitl.Rule
		want string
	}{
		"no name":            {hitl.Rule{Effect: hitl.EffectAsk}, "rule 1: name is required"},
		"bad effect":         {hitl.Rule{Name: "x", Effect: "maybe"}, `rule 1 (x): effect "maybe" is invalid`},
		"bad risk":           {hitl.Rule{Name: "x", Effect: hitl.EffectAsk, Risk: []hitl.Risk{"extreme"}}, `rule 1 (x): risk "extreme" is invalid`},
		"quorum too big":     {hitl.Rule{Name: "x", Effect: hitl.EffectAsk, Approvers: []string{"U0A"}, Quorum: 2}, "rule 1 (x): quorum 2 needs at least as many approvers"},
		"approvers on allow": {hitl.Rule{Name: "x", Effect: hitl.EffectAllow, Approvers: []string{"U0A"}}, "approvers and quorum only apply to effect ask"},
	} {
		t.Run(name+" is refused naming the rule and field", func(t *testing.T) {
			err := policy.ValidatePolicy(hitl.Policy{Rules: []hitl.Rule{tc.r}})
			require.Equal(t, fault.EINVALID, fault.Code(err))
			assert.Contains(t, fault.Message(err), tc.want)
		})
	}
}

func newPolicyService(t *testing.T, st *memstore.Store) *service.Service {
	t.Helper()
	svc := service.NewService(st, service.ServiceConfig{Notifier: notify.New(), Clock: clocktest.New(t0), Access: access.Access{Answerers: []string{"U0A", "U0B", "U0C"}}, ParseCommand: shell.Parse})
	require.NoError(t, svc.Policies.LoadPolicy(context.Background(), rules))
	return svc
}

func TestQuorum(t *testing.T) {
	svc := newPolicyService(t, memstore.New())
	agentCtx := auth.WithPrincipal(context.Background(), asker)
	out, err := svc.Policies.RequestOperation(agentCtx, hitl.ApprovalRequest{Operation: hitl.Operation{Type: "deploy", Description: "Deploy build 41", Resource: "prod/web"}})
	require.NoError(t, err)
	require.Equal(t, hitl.EffectAsk, out.Effect)
	q := out.Question
	require.NotNil(t, q)
	assert.Equal(t, 2, q.Quorum)
	by := func(u string) context.Context {
		return auth.WithPrincipal(context.Background(), access.Access{Answerers: []string{"U0A", "U0B", "U0C"}}.SlackPrincipal(u, nil))
	}
	t.Run("someone not listed is told so and not counted", func(t *testing.T) {
		_, err := svc.Questions.Answer(by("U0C"), q.ID, hitl.Response{Value: "approve"})
		require.Equal(t, fault.EFORBIDDEN, fault.Code(err))
		assert.Contains(t, fault.Message(err), "is not one of the approvers")
	})
	t.Run("one approval of two leaves it pending", func(t *testing.T) {
		got, err := svc.Questions.Answer(by("U0A"), q.ID, hitl.Response{Value: "approve"})
		require.NoError(t, err)
		assert.True(t, got.Pending())
		require.Len(t, got.Approvals, 1)
		assert.Equal(t, "slack:U0A", got.Approvals[0].By)
	})
	t.Run("the same person twice counts once", func(t *testing.T) {
		_, err := svc.Questions.Answer(by("U0A"), q.ID, hitl.Response{Value: "approve"})
		require.Equal(t, fault.EINVALID, fault.Code(err))
		assert.Contains(t, fault.Message(err), "1 of 2 approvals")
	})
	t.Run("a token named as an approver counts as another person", func(t *testing.T) {
		ops := auth.WithPrincipal(context.Background(), auth.TokenPrincipal("ops", []auth.Scope{auth.ScopeAnswer}, ""))
		got, err := svc.Questions.Answer(ops, q.ID, hitl.Response{Value: "approve"})
		require.NoError(t, err)
		assert.Equal(t, hitl.OutcomeApproved, got.Outcome())
	})
	t.Run("a single deny denies", func(t *testing.T) {
		out, err := svc.Policies.RequestOperation(agentCtx, hitl.ApprovalRequest{Operation: hitl.Operation{Type: "deploy", Description: "Deploy build 42", Resource: "prod/api"}})
		require.NoError(t, err)
		_, err = svc.Questions.Answer(by("U0A"), out.Question.ID, hitl.Response{Value: "approve"})
		require.NoError(t, err)
		got, err := svc.Questions.Answer(by("U0B"), out.Question.ID, hitl.Response{Value: "deny", Text: "not on a Friday"})
		require.NoError(t, err)
		assert.Equal(t, hitl.OutcomeDenied, got.Outcome())
	})
}

func TestPolicyDecisionsAreAuditedAndTakenFromTheToken(t *testing.T) {
	svc := newPolicyService(t, memstore.New())
	ci := auth.WithPrincipal(context.Background(), auth.TokenPrincipal("ci", nil, ""))
	out, err := svc.Policies.RequestOperation(ci, hitl.ApprovalRequest{Operation: hitl.Operation{Type: hitl.OpAPICall, Description: "List repos",
		Resource: "https://api.github.com/repos", Agent: "api:someone-else"}})
	require.NoError(t, err)
	assert.Equal(t, hitl.EffectAllow, out.Effect, "the token is ci, whatever the body says")
	assert.Equal(t, "ci-reads-api", out.Rule)
	out, err = svc.Policies.RequestOperation(ci, hitl.ApprovalRequest{Operation: hitl.Operation{Type: hitl.OpFileDelete, Description: "Drop data", Resource: "/srv/prod/db"}})
	require.NoError(t, err)
	assert.Equal(t, hitl.EffectDeny, out.Effect)
	assert.Nil(t, out.Question)
	evs, _, err := svc.Log.Events(auth.WithPrincipal(context.Background(), admin), 0, 0)
	require.NoError(t, err)
	var decisions []string
	for _, ev := range evs {
		if ev.Type == hitl.EventPolicyDecision {
			decisions = append(decisions, string(ev.Action)+":"+ev.Reason+":"+ev.Actor)
		}
	}
	assert.Equal(t, []string{"policy_set:the policy was set:config", "allow:ci-reads-api:api:ci", "deny:no-prod-deletes:api:ci"}, decisions,
		"the config file's policy, then the decisions")
	seen, _, _ := svc.Log.Events(auth.WithPrincipal(context.Background(), answerer), 0, 0)
	for _, ev := range seen {
		assert.NotEqual(t, hitl.EventPolicyDecision, ev.Type, "for admins only")
	}
}

func TestLearnedRules(t *testing.T) {
	svc := newPolicyService(t, memstore.New())
	agentCtx := auth.WithPrincipal(context.Background(), asker)
	person := auth.WithPrincipal(context.Background(), answerer)
	ask := func(t *testing.T, cmd string) hitl.ApprovalOutcome {
		t.Helper()
		out, err := svc.Policies.RequestOperation(agentCtx, hitl.ApprovalRequest{Operation: hitl.Operation{Type: hitl.OpShell, Description: "Run " + cmd, Resource: cmd}})
		require.NoError(t, err)
		return out
	}
	out := ask(t, "rm -rf /tmp/build-41")
	require.Equal(t, hitl.EffectAsk, out.Effect)
	require.True(t, out.Question.Learnable)
	_, err := svc.Questions.Answer(person, out.Question.ID, hitl.Response{Value: "approve", Always: true})
	require.NoError(t, err)
	page, err := svc.Policies.LearnedRules(person, hitl.LearnedRuleFilter{})
	require.NoError(t, err)
	require.Len(t, page.Rules, 1)
	r := page.Rules[0]
	assert.Equal(t, "rm -rf /tmp/build-41", r.Resource, "exactly the command shown, parsed")
	assert.Equal(t, "api:ci", r.Agent)
	assert.Equal(t, hitl.OpShell, r.OpType)
	assert.Equal(t, answerer.ID, r.CreatedBy)
	assert.Equal(t, out.Question.ID, r.QuestionID)
	assert.Equal(t, t0.Add(hitl.DefaultLearnedTTL), r.ExpiresAt)

	assert.Equal(t, hitl.EffectAllow, ask(t, "rm -rf /tmp/build-41").Effect, "the same request is not asked again")
	assert.Equal(t, hitl.EffectAsk, ask(t, "rm -rf /tmp/build-42").Effect, "another path is asked")
	assert.Equal(t, hitl.EffectAsk, ask(t, "rm -rf /").Effect, "and so is the root")
	assert.Equal(t, hitl.EffectAsk, ask(t, "rm -rf /tmp/build-41 && rm -rf ~").Effect, "a compound with it is asked")
	other, err := svc.Policies.RequestOperation(auth.WithPrincipal(context.Background(), other), hitl.ApprovalRequest{Operation: hitl.Operation{Type: hitl.OpShell, Description: "x", Resource: "rm -rf /tmp/build-41"}})
	require.NoError(t, err)
	assert.Equal(t, hitl.EffectAsk, other.Effect, "another agent is still asked")

	own, err := svc.Policies.LearnedRules(agentCtx, hitl.LearnedRuleFilter{})
	require.NoError(t, err)
	assert.Len(t, own.Rules, 1, "an agent sees what was taught for it")
	theirs, err := svc.Policies.LearnedRules(auth.WithPrincipal(context.Background(), auth.TokenPrincipal("another-agent", nil, "")), hitl.LearnedRuleFilter{})
	require.NoError(t, err)
	assert.Empty(t, theirs.Rules, "another agent does not see it")
	_, err = svc.Policies.LearnedRules(auth.WithPrincipal(context.Background(), access.Access{Answerers: []string{"U0A"}}.SlackPrincipal("U0Z", nil)), hitl.LearnedRuleFilter{})
	assert.Equal(t, fault.EFORBIDDEN, fault.Code(err), "a Slack user who may not answer sees no learned rule")
	_, err = svc.Policies.CheckOperation(auth.WithPrincipal(context.Background(), auth.TokenPrincipal("another-agent", nil, "")), hitl.ApprovalRequest{Operation: hitl.Operation{Type: hitl.OpShell, Description: "x", Resource: "ls", Agent: "ci"}})
	assert.Equal(t, fault.EFORBIDDEN, fault.Code(err), "an agent checks the policy only as itself")
	checked, err := svc.Policies.CheckOperation(agentCtx, hitl.ApprovalRequest{Operation: hitl.Operation{Type: hitl.OpShell, Description: "x", Resource: "rm -rf /tmp/build-41"}})
	require.NoError(t, err)
	assert.Equal(t, hitl.EffectAllow, checked.Effect, "hitl policy check decides as gate would, learned rules included")

	_, err = svc.Policies.RevokeRule(agentCtx, r.ID)
	assert.Equal(t, fault.EFORBIDDEN, fault.Code(err), "an agent may not revoke")
	_, err = svc.Policies.RevokeRule(person, r.ID)
	require.NoError(t, err)
	assert.Equal(t, hitl.EffectAsk, ask(t, "rm -rf /tmp/build-41").Effect, "revoked")
	_, err = svc.Policies.RevokeRule(person, r.ID)
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err))

	t.Run("a file rule is exactly the path shown", func(t *testing.T) {
		out, err := svc.Policies.RequestOperation(agentCtx, hitl.ApprovalRequest{Operation: hitl.Operation{Type: hitl.OpFileDelete, Description: "delete", Resource: "/tmp/a*b"}})
		require.NoError(t, err)
		_, err = svc.Questions.Answer(person, out.Question.ID, hitl.Response{Value: "approve", Always: true})
		require.NoError(t, err)
		again, _ := svc.Policies.Decide(agentCtx, hitl.Operation{Type: hitl.OpFileDelete, Description: "d", Resource: "/tmp/a*b"})
		assert.Equal(t, hitl.EffectAllow, again.Effect)
		wider, _ := svc.Policies.Decide(agentCtx, hitl.Operation{Type: hitl.OpFileDelete, Description: "d", Resource: "/tmp/aXXb"})
		assert.Equal(t, hitl.EffectAsk, wider.Effect, "a * in the path is not a wildcard in a learned rule")
	})
	t.Run("it expires", func(t *testing.T) {
		clock := clocktest.New(t0)
		st := memstore.New()
		svc := service.NewService(st, service.ServiceConfig{Notifier: notify.New(), Clock: clock, ParseCommand: shell.Parse, LearnedTTL: time.Hour})
		require.NoError(t, svc.Policies.LoadPolicy(context.Background(), rules))
		out, err := svc.Policies.RequestOperation(agentCtx, hitl.ApprovalRequest{Operation: hitl.Operation{Type: hitl.OpShell, Description: "x", Resource: "make test"}})
		require.NoError(t, err)
		_, err = svc.Questions.Answer(person, out.Question.ID, hitl.Response{Value: "approve", Always: true})
		require.NoError(t, err)
		d, _ := svc.Policies.Decide(agentCtx, hitl.Operation{Type: hitl.OpShell, Description: "x", Resource: "make test"})
		assert.Equal(t, hitl.EffectAllow, d.Effect)
		clock.Add(time.Hour)
		d, _ = svc.Policies.Decide(agentCtx, hitl.Operation{Type: hitl.OpShell, Description: "x", Resource: "make test"})
		assert.Equal(t, hitl.EffectAsk, d.Effect, "after policy.learned_ttl it asks again")
		n, err := svc.Policies.PruneLearnedRules(context.Background(), 10)
		require.NoError(t, err)
		assert.Equal(t, 1, n)
	})
}

// TestAlwaysIsRefusedWhereItCouldNotApply: "approve and always allow" is
// refused, with nothing written, where a learned rule would be wider than
// what the person saw or would replace people a rule names.
func TestAlwaysIsRefusedWhereItCouldNotApply(t *testing.T) {
	svc := newPolicyService(t, memstore.New())
	agentCtx := auth.WithPrincipal(context.Background(), asker)
	for _, tc := range []struct {
		name string
		op   hitl.Operation
		why  string
	}{
		{"a quorum rule", hitl.Operation{Type: "deploy", Resource: "prod/web"}, "names who approves"},
		{"a compound command", hitl.Operation{Type: hitl.OpShell, Resource: "make test && make lint"}, "only one simple command"},
		{"a command with a redirection", hitl.Operation{Type: hitl.OpShell, Resource: "make test > out.txt"}, "only one simple command"},
		{"a command computed when it runs", hitl.Operation{Type: hitl.OpShell, Resource: "rm -rf $DIR"}, "only one simple command"},
		{"a string handed to a shell", hitl.Operation{Type: hitl.OpShell, Resource: "sh -c 'make test'"}, "only one simple command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.op.Description = "do " + tc.name
			out, err := svc.Policies.RequestOperation(agentCtx, hitl.ApprovalRequest{Operation: tc.op})
			require.NoError(t, err)
			require.Equal(t, hitl.EffectAsk, out.Effect)
			assert.False(t, out.Question.Learnable, "not offered")
			by := auth.WithPrincipal(context.Background(), answerer)
			if out.Question.Quorum > 1 {
				by = auth.WithPrincipal(context.Background(), access.Access{Answerers: []string{"U0A"}}.SlackPrincipal("U0A", nil))
			}
			_, err = svc.Questions.Answer(by, out.Question.ID, hitl.Response{Value: "approve", Always: true})
			require.Equal(t, fault.EINVALID, fault.Code(err))
			assert.Contains(t, fault.Message(err), tc.why)
			q, err := svc.Questions.Question(auth.WithPrincipal(context.Background(), admin), out.Question.ID)
			require.NoError(t, err)
			assert.True(t, q.Pending(), "nothing written")
			assert.Empty(t, q.Approvals)
			page, err := svc.Policies.LearnedRules(by, hitl.LearnedRuleFilter{})
			require.NoError(t, err)
			assert.Empty(t, page.Rules)
		})
	}
}

// TestOnlyWhoMayAnswerTeaches: "always allow" is part of an answer, and
// is refused to whoever may not answer the approval.
func TestOnlyWhoMayAnswerTeaches(t *testing.T) {
	svc := newPolicyService(t, memstore.New())
	agentCtx := auth.WithPrincipal(context.Background(), asker)
	out, err := svc.Policies.RequestOperation(agentCtx, hitl.ApprovalRequest{Operation: hitl.Operation{Type: hitl.OpShell, Description: "x", Resource: "make test"}})
	require.NoError(t, err)
	require.True(t, out.Question.Learnable)
	for name, p := range map[string]auth.Principal{
		"the agent that asked":                asker,
		"another agent":                       other,
		"a Slack user who is not an answerer": access.Access{Answerers: []string{"U0A"}}.SlackPrincipal("U0Z", nil),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := svc.Questions.Answer(auth.WithPrincipal(context.Background(), p), out.Question.ID, hitl.Response{Value: "approve", Always: true})
			assert.Equal(t, fault.EFORBIDDEN, fault.Code(err))
			page, err := svc.Policies.LearnedRules(auth.WithPrincipal(context.Background(), answerer), hitl.LearnedRuleFilter{})
			require.NoError(t, err)
			assert.Empty(t, page.Rules, "nothing learned")
		})
	}
}

// TestConcurrentPolicyChangesAllSurvive: learning, revoking and replacing
// the policy are each one store transaction on the stored state.
func TestConcurrentPolicyChangesAllSurvive(t *testing.T) {
	svc := newPolicyService(t, memstore.New())
	agentCtx := auth.WithPrincipal(context.Background(), asker)
	person := auth.WithPrincipal(context.Background(), answerer)
	const n = 40
	ids := make([]string, n)
	for i := range ids {
		out, err := svc.Policies.RequestOperation(agentCtx, hitl.ApprovalRequest{Operation: hitl.Operation{Type: hitl.OpShell, Description: "x", Resource: fmt.Sprintf("make target-%d", i)}})
		require.NoError(t, err)
		ids[i] = out.Question.ID
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for _, id := range ids {
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, err := svc.Questions.Answer(person, id, hitl.Response{Value: "approve", Always: true})
			errs <- err
		}()
		go func() {
			defer wg.Done()
			_, err := svc.Policies.SetPolicy(auth.WithPrincipal(context.Background(), admin), rules)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	page, err := svc.Policies.LearnedRules(person, hitl.LearnedRuleFilter{Limit: 1000})
	require.NoError(t, err)
	require.Len(t, page.Rules, n, "every acknowledged 'always' is a rule")
	var revoke sync.WaitGroup
	for i, r := range page.Rules {
		if i%2 == 0 {
			revoke.Add(1)
			go func() {
				defer revoke.Done()
				_, err := svc.Policies.RevokeRule(person, r.ID)
				assert.NoError(t, err)
			}()
		}
	}
	revoke.Wait()
	page, err = svc.Policies.LearnedRules(person, hitl.LearnedRuleFilter{Limit: 1000})
	require.NoError(t, err)
	assert.Len(t, page.Rules, n/2, "a revoked rule never returns")
}

func TestEditThenApprove(t *testing.T) {
	svc := newPolicyService(t, memstore.New())
	agentCtx := auth.WithPrincipal(context.Background(), asker)
	out, err := svc.Policies.RequestOperation(agentCtx, hitl.ApprovalRequest{Operation: hitl.Operation{Type: hitl.OpShell, Description: "Clean up", Resource: "rm -rf /"}})
	require.NoError(t, err)
	got, err := svc.Questions.Answer(auth.WithPrincipal(context.Background(), answerer), out.Question.ID, hitl.Response{Value: "approve", Edited: "rm -rf ./build"})
	require.NoError(t, err)
	assert.Equal(t, "rm -rf ./build", got.Response.Edited, "the agent runs what the person approved")
	assert.Equal(t, "rm -rf /", got.Operation.Resource, "and both versions are kept")
	plain, _, err := svc.Questions.Create(agentCtx, "r", hitl.NewQuestion{Question: "Deploy?", Type: hitl.Approval})
	require.NoError(t, err)
	_, err = svc.Questions.Answer(auth.WithPrincipal(context.Background(), answerer), plain.ID, hitl.Response{Value: "approve", Edited: "x"})
	assert.Equal(t, fault.EINVALID, fault.Code(err), "only an operation can be edited")
}

func TestSetPolicyBeatsTheFileUntilItChanges(t *testing.T) {
	st := memstore.New()
	svc := newPolicyService(t, st)
	admin := auth.WithPrincipal(context.Background(), admin)
	_, err := svc.Policies.SetPolicy(auth.WithPrincipal(context.Background(), answerer), nil)
	assert.Equal(t, fault.EFORBIDDEN, fault.Code(err), "admins only")
	put := []hitl.Rule{{Name: "all-shell-allowed", OpType: hitl.OpShell, Effect: hitl.EffectAllow}}
	_, err = svc.Policies.SetPolicy(admin, put)
	require.NoError(t, err)

	restarted := newPolicyService(t, st) // the same file rules
	pol, _ := restarted.Policies.Policy(context.Background())
	require.Len(t, pol.Rules, 1)
	assert.Equal(t, "all-shell-allowed", pol.Rules[0].Name, "the PUT survives a restart")

	changed := service.NewService(st, service.ServiceConfig{Notifier: notify.New(), Clock: clocktest.New(t0)})
	require.NoError(t, changed.Policies.LoadPolicy(context.Background(), rules[:2]))
	pol, _ = changed.Policies.Policy(context.Background())
	assert.Len(t, pol.Rules, 2, "the file changed: it wins again")
	_, err = svc.Policies.SetPolicy(admin, []hitl.Rule{{Name: "", Effect: hitl.EffectAsk}})
	assert.ErrorContains(t, err, "rule 1: name is required")
}

// TestEditable: which operations a person may edit before approving. Any
// type with a resource (a framework tool's own type carries its JSON
// input), except spawn_agent, whose resource picks the agent to start.
func TestEditable(t *testing.T) {
	for _, tc := range []struct {
		name string
		op   hitl.Operation
		want bool
	}{
		{"a shell command", hitl.Operation{Type: hitl.OpShell, Resource: "make test"}, true},
		{"a file write", hitl.Operation{Type: hitl.OpFileWrite, Resource: "src/billing.go"}, true},
		{"a file delete", hitl.Operation{Type: hitl.OpFileDelete, Resource: "/tmp/x"}, true},
		{"a file read", hitl.Operation{Type: hitl.OpFileRead, Resource: "/etc/hosts"}, true},
		{"an API call", hitl.Operation{Type: hitl.OpAPICall, Resource: "https://api.example.com/v1"}, true},
		{"a framework tool's own type with its JSON input", hitl.Operation{Type: "send_email", Resource: `{"to":"a@example.com"}`}, true},
		{"a custom type with a resource", hitl.Operation{Type: "deploy", Resource: "prod/web"}, true},
		{"a subagent is never edited", hitl.Operation{Type: hitl.OpSpawnAgent, Resource: "general-purpose"}, false},
		{"an operation without a resource", hitl.Operation{Type: "rotate_keys"}, false},
		{"a shell operation without a command", hitl.Operation{Type: hitl.OpShell}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.op.Editable())
		})
	}
}
