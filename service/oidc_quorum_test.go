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

// TestQuorumOIDCAndSlackOnePerson: a person signed in with Sign in with
// Slack (OpenID Connect) and the same person clicking in Slack are one
// person: their two approvals count once.
func TestQuorumOIDCAndSlackOnePerson(t *testing.T) {
	svc := newPolicyService(t, memstore.New())
	out, err := svc.Policies.RequestOperation(auth.WithPrincipal(context.Background(), asker),
		hitl.ApprovalRequest{Operation: hitl.Operation{Type: "deploy", Description: "Deploy build 43", Resource: "prod/web"}})
	require.NoError(t, err)
	require.NotNil(t, out.Question)
	require.Equal(t, 2, out.Question.Quorum)

	web, err := access.OIDCRoles{Answer: []string{"@example.com"}}.OIDCPrincipal(access.OIDCClaims{Subject: "x",
		Email: "a@example.com", EmailVerified: true, SlackUser: "U0A"})
	require.NoError(t, err)
	got, err := svc.Questions.Answer(auth.WithEdge(auth.WithPrincipal(context.Background(), web), auth.EdgeWeb), out.Question.ID, hitl.Response{Value: hitl.Approve})
	require.NoError(t, err)
	require.Len(t, got.Approvals, 1, "the web approval counts")
	assert.True(t, got.Pending())

	click := access.Access{Answerers: []string{"U0A", "U0B", "U0C"}}.SlackPrincipal("U0A", nil)
	_, err = svc.Questions.Answer(auth.WithEdge(auth.WithPrincipal(context.Background(), click), auth.EdgeSlack), out.Question.ID, hitl.Response{Value: hitl.Approve})
	require.Equal(t, fault.EINVALID, fault.Code(err), "the same person's Slack click does not count again")
	assert.Contains(t, fault.Message(err), "1 of 2 approvals")

	other := access.Access{Answerers: []string{"U0A", "U0B", "U0C"}}.SlackPrincipal("U0B", nil)
	got, err = svc.Questions.Answer(auth.WithPrincipal(context.Background(), other), out.Question.ID, hitl.Response{Value: hitl.Approve})
	require.NoError(t, err)
	assert.Equal(t, hitl.OutcomeApproved, got.Outcome(), "another person makes the quorum")
}
