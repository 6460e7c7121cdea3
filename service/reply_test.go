package service_test

import (
	"context"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAReplyIsNeverAnApproval: a reply to the agent (text instead of a
// verdict) settles an approval as not approved for every rule: it is no
// vote towards a quorum, it never teaches a learned rule, it edits nothing,
// and whoever may not answer may not reply.
func TestAReplyIsNeverAnApproval(t *testing.T) {
	slack := func(u string) context.Context {
		return auth.WithPrincipal(context.Background(), access.Access{Answerers: []string{"U0A", "U0B", "U0C"}}.SlackPrincipal(u, nil))
	}
	deploy := hitl.Operation{Type: "deploy", Description: "Deploy build 41", Resource: "prod/web"} // two-person-deploys: quorum 2
	makeTest := hitl.Operation{Type: hitl.OpShell, Description: "Run the tests", Resource: "make test"}
	reply := hitl.Response{Value: hitl.Reply, Text: "use make check instead"}
	type answer struct {
		by context.Context
		r  hitl.Response
	}
	for _, tc := range []struct {
		name      string
		op        hitl.Operation
		before    []answer // given first, each must succeed
		reply     answer
		code      string // the reply's error code; "" when it is taken
		approvals int    // votes recorded on the settled approval
		wantEdit  string
	}{
		{name: "a reply settles an approval as not approved", op: makeTest, reply: answer{slack("U0A"), reply}},
		{name: "a reply is not a vote: after one approval of two it settles unapproved", op: deploy,
			before: []answer{{slack("U0A"), hitl.Response{Value: hitl.Approve}}}, reply: answer{slack("U0B"), reply}, approvals: 1},
		{name: "a reply on a quorum approval settles it at once, with no vote", op: deploy, reply: answer{slack("U0A"), reply}},
		{name: "a reply with always teaches nothing", op: makeTest, reply: answer{slack("U0A"), hitl.Response{Value: hitl.Reply, Text: "no", Always: true}}},
		{name: "a reply with an edit edits nothing", op: makeTest, reply: answer{slack("U0A"), hitl.Response{Value: hitl.Reply, Text: "no", Edited: "make check"}}},
		{name: "a reply without text is refused", op: makeTest, reply: answer{slack("U0A"), hitl.Response{Value: hitl.Reply, Text: "  "}}, code: fault.EINVALID},
		{name: "a reply from someone who may not answer is refused", op: makeTest, reply: answer{slack("U0Z"), reply}, code: fault.EFORBIDDEN},
		{name: "the agent that asked may not reply to itself", op: makeTest, reply: answer{auth.WithPrincipal(context.Background(), asker), reply}, code: fault.EFORBIDDEN},
		{name: "a reply to a quorum approval from someone not listed is refused", op: deploy, reply: answer{slack("U0C"), reply}, code: fault.EFORBIDDEN},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := newPolicyService(t, memstore.New())
			out, err := svc.Policies.RequestOperation(auth.WithPrincipal(context.Background(), asker), hitl.ApprovalRequest{Operation: tc.op})
			require.NoError(t, err)
			require.Equal(t, hitl.EffectAsk, out.Effect)
			id := out.Question.ID
			for _, a := range tc.before {
				_, err := svc.Questions.Answer(a.by, id, a.r)
				require.NoError(t, err)
			}
			_, err = svc.Questions.Answer(tc.reply.by, id, tc.reply.r)
			q, qerr := svc.Questions.Question(auth.WithPrincipal(context.Background(), admin), id)
			require.NoError(t, qerr)
			learned, lerr := svc.Policies.LearnedRules(slack("U0A"), hitl.LearnedRuleFilter{})
			require.NoError(t, lerr)
			assert.Empty(t, learned.Rules, "a reply never teaches")
			if tc.code != "" {
				require.Equal(t, tc.code, fault.Code(err), "%v", err)
				assert.True(t, q.Pending(), "nothing written")
				assert.Len(t, q.Approvals, len(tc.before))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, hitl.OutcomeReplied, q.Outcome())
			assert.False(t, q.Response.Approved(), "never an approval")
			assert.True(t, q.Response.Replied())
			assert.Equal(t, tc.reply.r.Text, q.Response.Text)
			assert.Len(t, q.Approvals, tc.approvals, "a reply adds no vote")
			assert.False(t, q.QuorumMet() && q.NeedsSeveral(), "a reply never meets a quorum")
			assert.Equal(t, tc.wantEdit, q.Response.Edited)
			assert.False(t, q.Response.Always)
		})
	}
}

// TestReplyValues: the words that mean a reply, and what an approval
// outcome is for each verdict.
func TestReplyValues(t *testing.T) {
	q := &hitl.Question{ID: "q_1", Type: hitl.Approval, ResponseType: hitl.ApprovalResponse, Status: hitl.StatusAnswered}
	for _, tc := range []struct {
		value   any
		text    string
		want    string
		outcome hitl.Outcome
		code    string
	}{
		{value: "reply", text: "use staging", want: hitl.Reply, outcome: hitl.OutcomeReplied},
		{value: "Respond", text: "use staging", want: hitl.Reply, outcome: hitl.OutcomeReplied},
		{value: "reply", text: "", code: fault.EINVALID},
		{value: "approve", text: "ok", want: hitl.Approve, outcome: hitl.OutcomeApproved},
		{value: "deny", want: hitl.Deny, outcome: hitl.OutcomeDenied},
		{value: "maybe", code: fault.EINVALID},
	} {
		t.Run(tc.want+"/"+string(tc.outcome)+"/"+tc.code, func(t *testing.T) {
			r, err := q.ValidateResponse(hitl.Response{Value: tc.value, Text: tc.text})
			if tc.code != "" {
				require.Equal(t, tc.code, fault.Code(err))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, r.Value)
			settled := *q
			settled.Response = &r
			assert.Equal(t, tc.outcome, settled.Outcome())
			assert.Equal(t, tc.outcome == hitl.OutcomeApproved, r.Approved())
		})
	}
}
