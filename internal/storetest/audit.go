package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// AuditBackend is a store that keeps the audit trail.
type AuditBackend interface {
	hitl.Store
	hitl.AuditStore
}

// auditRec counts the calls to an AuditBackend's AuditStore methods.
type auditRec struct {
	hitl.Store
	a hitl.AuditStore
	c *calls
}

func (r auditRec) AppendAudit(ctx context.Context, rec *hitl.AuditRecord) error {
	r.c.add("AppendAudit")
	return r.a.AppendAudit(ctx, rec)
}

func (r auditRec) AuditRecords(ctx context.Context, f hitl.AuditFilter) ([]*hitl.AuditRecord, error) {
	r.c.add("AuditRecords")
	return r.a.AuditRecords(ctx, f)
}

func (r auditRec) AuditHead(ctx context.Context) (hitl.AuditHead, *hitl.AuditCheckpoint, error) {
	r.c.add("AuditHead")
	return r.a.AuditHead(ctx)
}

func (r auditRec) PruneAudit(ctx context.Context, cp hitl.AuditCheckpoint) (int, error) {
	r.c.add("PruneAudit")
	return r.a.PruneAudit(ctx, cp)
}

var auditKey = service.AuditKeyOf([]byte("0123456789abcdef0123456789abcdef"))

// auditEnv is a service over st that audits into it.
func auditEnv(st AuditBackend) *env {
	return envWith(st, service.ServiceConfig{AuditTrail: st, AuditKey: auditKey})
}

// RunAudit is the contract of hitl.AuditStore: records derived from the
// events a service appends, in their transaction, and those appended on
// their own, in one chain that verifies, pages, and prunes behind a
// signed checkpoint.
func RunAudit(t *testing.T, open func(t *testing.T) AuditBackend) {
	contract[hitl.AuditStore](t, open, func(s AuditBackend, c *calls) AuditBackend { return auditRec{s, s, c} },
		func(open func(*testing.T) AuditBackend) {
			t.Run("each decision is one chained record, through every edge", func(t *testing.T) { testAuditDecisions(t, open(t)) })
			t.Run("the policy's decisions, learned and revoked rules are records", func(t *testing.T) { testAuditPolicy(t, open(t)) })
			t.Run("a change and its record commit in one transaction", func(t *testing.T) { testAuditWithTheWrite(t, open(t)) })
			t.Run("records page by seq and by time", func(t *testing.T) { testAuditPaging(t, open(t)) })
			t.Run("concurrent writers make one chain", func(t *testing.T) { testAuditConcurrent(t, open(t)) })
			t.Run("prune keeps a signed checkpoint, and the rest verifies", func(t *testing.T) { testAuditPrune(t, open(t)) })
		})
}

// verify verifies st's chain and returns the break (nil: it holds).
func verify(t *testing.T, st hitl.AuditStore) (hitl.AuditVerdict, *hitl.AuditBreak) {
	t.Helper()
	v, err := service.VerifyTrail(context.Background(), st, auditKey)
	require.NoError(t, err)
	return v, v.Break
}

func kinds(t *testing.T, st hitl.AuditStore) []hitl.AuditKind {
	t.Helper()
	recs, err := st.AuditRecords(context.Background(), hitl.AuditFilter{Limit: 1000})
	require.NoError(t, err)
	var out []hitl.AuditKind
	for _, r := range recs {
		out = append(out, r.Kind)
	}
	return out
}

func testAuditDecisions(t *testing.T, st AuditBackend) {
	e := auditEnv(st)
	ctx := context.Background()
	edge := func(p auth.Principal, edge string) context.Context { return auth.WithEdge(as(p), edge) }
	alice := auth.Principal{ID: "slack:U0ALICE", Scopes: []auth.Scope{auth.ScopeAnswer}, SlackUser: "U0ALICE"}

	q := e.ask(t, "run-1", hitl.NewQuestion{Question: "Deploy?", Type: hitl.Approval})
	e.clock.Add(time.Millisecond)
	_, err := e.svc.Questions.Answer(edge(alice, auth.EdgeSlack), q.ID, hitl.Response{Value: "approve", Text: "go"})
	require.NoError(t, err)
	secret := e.ask(t, "run-1", hitl.NewQuestion{Question: "Password?", InputType: hitl.PasswordInput})
	_, err = e.svc.Questions.Answer(edge(person, auth.EdgeWeb), secret.ID, hitl.Response{Value: "hunter2"})
	require.NoError(t, err)
	gone := e.ask(t, "run-1", hitl.NewQuestion{Question: "Still?"})
	_, err = e.svc.Questions.Cancel(edge(agent, auth.EdgeAPI), gone.ID, "not needed")
	require.NoError(t, err)
	late := e.ask(t, "run-1", hitl.NewQuestion{Question: "Soon?", TimeoutMinutes: &fiveMinutes})
	e.clock.Add(time.Hour)
	_, err = e.svc.Questions.SweepExpired(ctx)
	require.NoError(t, err)
	_, err = e.svc.Questions.Answer(edge(agent, auth.EdgeAPI), late.ID, hitl.Response{Value: "x"})
	require.Error(t, err, "an agent may not answer: a refusal")
	_, err = e.svc.Policies.SetPolicy(edge(admin, auth.EdgeAPI), []hitl.Rule{{Name: "ls", OpType: hitl.OpShell, Resource: "ls", Effect: hitl.EffectAllow}})
	require.NoError(t, err)
	secretOut, _, err := e.svc.SignIns.SignIn(ctx, person, 0)
	require.NoError(t, err)
	require.NoError(t, e.svc.SignIns.SignOut(ctx, secretOut))
	require.NoError(t, e.svc.Audit.WebhookFailed(ctx, hitl.WebhookDelivery{Endpoint: "ci", EventSeq: 3, RunID: "run-1", LastError: "status 500", Attempts: 8}))

	assert.Equal(t, []hitl.AuditKind{hitl.AuditAsked, hitl.AuditAnswered, hitl.AuditAsked, hitl.AuditAnswered, hitl.AuditAsked,
		hitl.AuditCancelled, hitl.AuditAsked, hitl.AuditTimedOut, hitl.AuditRefused, hitl.AuditPolicyChanged, hitl.AuditSignedIn,
		hitl.AuditSignedOut, hitl.AuditWebhookFailed}, kinds(t, st))
	recs, err := st.AuditRecords(ctx, hitl.AuditFilter{})
	require.NoError(t, err)
	assert.Equal(t, "slack:U0ALICE", recs[1].Actor)
	assert.Equal(t, auth.EdgeSlack, recs[1].Edge)
	assert.Equal(t, "approve", recs[1].Answer)
	assert.Equal(t, "go", recs[1].Text)
	assert.Equal(t, auth.EdgeWeb, recs[3].Edge)
	assert.True(t, recs[3].Redacted, "a password answer is recorded as given, never its value")
	assert.Empty(t, recs[3].Answer)
	for _, r := range recs {
		assert.NotContains(t, fmt.Sprint(*r), "hunter2")
	}
	assert.Equal(t, "not needed", recs[5].Reason)
	assert.Equal(t, auth.EdgeAPI, recs[8].Edge)
	assert.Equal(t, "api:admin", recs[9].Actor)
	require.Len(t, recs[9].Diff, 1)
	assert.Contains(t, recs[9].Diff[0], `+ {"name":"ls"`)
	assert.Equal(t, "ci", recs[12].Target)
	for i, r := range recs {
		assert.NotZero(t, r.EventSeq+boolSeq(r.Kind == hitl.AuditSignedIn || r.Kind == hitl.AuditSignedOut || r.Kind == hitl.AuditWebhookFailed), "record %d names its event", i)
	}
	v, b := verify(t, st)
	assert.Nil(t, b)
	assert.Equal(t, len(recs), v.Records)
	assert.Equal(t, uint64(len(recs)), v.Head.Seq)
}

func boolSeq(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func testAuditPaging(t *testing.T, st AuditBackend) {
	ctx := context.Background()
	for i := range 250 {
		require.NoError(t, st.AppendAudit(ctx, &hitl.AuditRecord{At: t0.Add(time.Duration(i) * time.Minute), Kind: hitl.AuditSignedIn, Actor: fmt.Sprintf("api:p%d", i)}))
	}
	var got []uint64
	f := hitl.AuditFilter{Limit: 100}
	for {
		page, err := st.AuditRecords(ctx, f)
		require.NoError(t, err)
		for _, r := range page {
			got = append(got, r.Seq)
		}
		if len(page) < f.PageSize() {
			break
		}
		f.After = page[len(page)-1].Seq
	}
	require.Len(t, got, 250)
	for i, s := range got {
		require.Equal(t, uint64(i+1), s)
	}
	since, err := st.AuditRecords(ctx, hitl.AuditFilter{Since: t0.Add(240 * time.Minute)})
	require.NoError(t, err)
	require.Len(t, since, 10)
	assert.Equal(t, uint64(241), since[0].Seq)
	head, cp, err := st.AuditHead(ctx)
	require.NoError(t, err)
	assert.Nil(t, cp)
	assert.Equal(t, uint64(250), head.Seq)
	_, b := verify(t, st)
	assert.Nil(t, b)
}

func testAuditConcurrent(t *testing.T, st AuditBackend) {
	e := auditEnv(st)
	ctx := context.Background()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 10 {
				_, _, err := e.svc.Questions.Create(as(agent), fmt.Sprintf("run-%d", w), hitl.NewQuestion{Question: "Q?"})
				assert.NoError(t, err)
				assert.NoError(t, st.AppendAudit(ctx, &hitl.AuditRecord{At: t0, Kind: hitl.AuditSignedIn, Actor: fmt.Sprintf("api:w%d-%d", w, i)}))
			}
		})
	}
	wg.Wait()
	v, b := verify(t, st)
	assert.Nil(t, b, "one chain")
	assert.Equal(t, 80, v.Records)
}

func testAuditPrune(t *testing.T, st AuditBackend) {
	e := auditEnv(st)
	ctx := context.Background()
	for range 5 {
		e.ask(t, "run-old", hitl.NewQuestion{Question: "Q?"})
	}
	e.clock.Add(48 * time.Hour)
	for range 3 {
		e.ask(t, "run-new", hitl.NewQuestion{Question: "Q?"})
	}
	n, err := e.svc.Audit.PruneAudit(ctx, e.clock.Now().Add(-24*time.Hour), 1000)
	require.NoError(t, err)
	assert.Equal(t, 5, n)
	head, cp, err := st.AuditHead(ctx)
	require.NoError(t, err)
	require.NotNil(t, cp)
	assert.Equal(t, uint64(5), cp.Seq)
	assert.Equal(t, uint64(8), head.Seq)
	v, b := verify(t, st)
	assert.Nil(t, b, "the rest verifies from the checkpoint")
	assert.Equal(t, 3, v.Records)

	_, err = st.PruneAudit(ctx, hitl.AuditCheckpoint{Seq: 8, Hash: head.Hash})
	assert.Equal(t, fault.EINVALID, fault.Code(err), "the head stays")
	_, err = st.PruneAudit(ctx, hitl.AuditCheckpoint{Seq: 4})
	assert.Equal(t, fault.EINVALID, fault.Code(err), "a checkpoint never goes back")

	forged := *cp
	forged.MAC = "00"
	_, err = st.PruneAudit(ctx, forged)
	require.NoError(t, err, "the store keeps what it is given")
	_, b = verify(t, st)
	require.NotNil(t, b)
	assert.Equal(t, hitl.AuditUnsigned, b.Problem, "a checkpoint the service did not sign breaks the chain")

	noKey := envWith(st, service.ServiceConfig{AuditTrail: st})
	n, err = noKey.svc.Audit.PruneAudit(ctx, e.clock.Now().Add(time.Hour), 1000)
	require.NoError(t, err)
	assert.Zero(t, n, "without a seal key file nothing is pruned")
}

var fiveMinutes = 5.0

func testAuditPolicy(t *testing.T, st AuditBackend) {
	e := auditEnv(st)
	ctx := context.Background()
	_, err := e.svc.Policies.SetPolicy(as(admin), []hitl.Rule{
		{Name: "gh", OpType: hitl.OpAPICall, Resource: "https://api.github.com/", Effect: hitl.EffectAllow},
		{Name: "no-deletes", OpType: hitl.OpFileDelete, Effect: hitl.EffectDeny},
	})
	require.NoError(t, err)
	out, err := e.svc.Policies.RequestOperation(as(agent), hitl.ApprovalRequest{Operation: hitl.Operation{Type: hitl.OpAPICall, Description: "list", Resource: "https://api.github.com/repos"}})
	require.NoError(t, err)
	require.Equal(t, hitl.EffectAllow, out.Effect)
	out, err = e.svc.Policies.RequestOperation(as(agent), hitl.ApprovalRequest{Operation: hitl.Operation{Type: hitl.OpFileDelete, Description: "rm", Resource: "/srv/db"}})
	require.NoError(t, err)
	require.Equal(t, hitl.EffectDeny, out.Effect)
	out, err = e.svc.Policies.RequestOperation(as(agent), hitl.ApprovalRequest{Operation: hitl.Operation{Type: hitl.OpFileWrite, Description: "write", Resource: "/tmp/notes.txt"}})
	require.NoError(t, err)
	require.Equal(t, hitl.EffectAsk, out.Effect)
	require.True(t, out.Learnable)
	_, err = e.svc.Questions.Answer(as(person), out.QuestionID, hitl.Response{Value: hitl.Approve, Always: true})
	require.NoError(t, err)
	page, err := e.svc.Policies.LearnedRules(as(admin), hitl.LearnedRuleFilter{})
	require.NoError(t, err)
	require.Len(t, page.Rules, 1)
	_, err = e.svc.Policies.RevokeRule(as(admin), page.Rules[0].ID)
	require.NoError(t, err)
	assert.Equal(t, []hitl.AuditKind{hitl.AuditPolicyChanged, hitl.AuditPolicyAllowed, hitl.AuditPolicyDenied, hitl.AuditAsked,
		hitl.AuditAnswered, hitl.AuditRuleLearned, hitl.AuditRuleRevoked}, kinds(t, st))
	recs, err := st.AuditRecords(ctx, hitl.AuditFilter{})
	require.NoError(t, err)
	assert.NotEmpty(t, recs[1].Rule, "the rule that allowed")
	assert.Equal(t, "no-deletes", recs[2].Rule)
	assert.Contains(t, recs[5].Operation, "/tmp/notes.txt")
	_, b := verify(t, st)
	assert.Nil(t, b)
}

// testAuditWithTheWrite: the writes that change who may decide carry
// their record into their own transaction (learned and revoked rules,
// the policy, sign-ins and sign-outs); a write that changes nothing
// records nothing.
func testAuditWithTheWrite(t *testing.T, st AuditBackend) {
	ctx := context.Background()
	at := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	policyEvent := func(action, rule string) *hitl.Event {
		return &hitl.Event{Type: hitl.EventPolicyDecision, At: at, Actor: "api:admin", Action: auth.Action(action), Reason: rule}
	}
	revoked := func(gone *hitl.LearnedRule) *hitl.Event { return policyEvent("revoked", gone.Name()) }
	signedOut := func(gone *hitl.SignIn) *hitl.AuditRecord { return hitl.SignInAudit(gone.Principal, "", true, at) }

	r := &hitl.LearnedRule{ID: "r_1", Agent: "api:ci", OpType: hitl.OpFileWrite, Resource: "/tmp/x", CreatedBy: "api:admin", CreatedAt: at, ExpiresAt: at.Add(time.Hour)}
	require.NoError(t, st.PutLearnedRule(ctx, r, policyEvent("learned", r.Name())))
	gone, err := st.DeleteLearnedRule(ctx, r.ID, revoked)
	require.NoError(t, err)
	assert.Equal(t, r.ID, gone.ID)
	_, err = st.DeleteLearnedRule(ctx, r.ID, revoked)
	require.Equal(t, fault.ENOTFOUND, fault.Code(err), "nothing to revoke")
	require.NoError(t, st.PutPolicyState(ctx, &hitl.PolicyState{Rules: []hitl.Rule{{Name: "ls", OpType: hitl.OpShell, Resource: "ls", Effect: hitl.EffectAllow}}},
		&hitl.Event{Type: hitl.EventPolicyDecision, At: at, Actor: "api:admin", Action: "policy_set", Diff: []string{"+ ls"}}))
	ws := &hitl.SignIn{ID: "s_1", Principal: person, CSRF: "c", CreatedAt: at, ExpiresAt: at.Add(time.Hour)}
	require.NoError(t, st.PutSignIn(ctx, ws, hitl.SignInAudit(person, "oidc", false, at)))
	_, err = st.DeleteSignIn(ctx, ws.ID, signedOut)
	require.NoError(t, err)
	_, err = st.DeleteSignIn(ctx, ws.ID, signedOut)
	require.Equal(t, fault.ENOTFOUND, fault.Code(err), "nothing to sign out")

	assert.Equal(t, []hitl.AuditKind{hitl.AuditRuleLearned, hitl.AuditRuleRevoked, hitl.AuditPolicyChanged, hitl.AuditSignedIn, hitl.AuditSignedOut}, kinds(t, st))
	recs, err := st.AuditRecords(ctx, hitl.AuditFilter{})
	require.NoError(t, err)
	assert.Equal(t, r.Name(), recs[1].Rule, "the revoked rule is named")
	assert.NotZero(t, recs[0].EventSeq, "the record names its event, appended with it")
	assert.Equal(t, "oidc", recs[3].Action)
	assert.Equal(t, person.ID, recs[4].Actor)
	_, b := verify(t, st)
	assert.Nil(t, b)
}
