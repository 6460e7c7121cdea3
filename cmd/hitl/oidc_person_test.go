package main

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/blocks"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/oidctest"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOnePersonAcrossEdges: a person is one person on the web, in Slack
// and behind a token. Alice signs in with Sign in with Slack (a real
// provider issuing Slack's user and team claims), Bob with the company's
// provider under the e-mail his Slack profile has; each one's web
// approval, Slack click and token (slack_user) count once toward a
// quorum of two. A Slack sign-in from another workspace is refused.
func TestOnePersonAcrossEdges(t *testing.T) {
	op := oidctest.StartProvider(t)
	op.Slack("T0HITL", map[string]string{oidctest.TestUser: "U0ALICE"})
	host := strings.Split(strings.TrimPrefix(op.Issuer, "http://"), ":")[0]
	srv := slackfake.New(t, slackfake.FailOnReject(), slackfake.WithUserEmail("U0BOB", "test-user2@zitadel.ch"))
	sso := withOIDC(t, op.Issuer, config.OIDCRoles{Answer: []string{"@zitadel.ch"}}, "zitadel.ch")
	e := slackEnvOn(t, srv, 60*time.Second, func(c *config.Config, m *Main) {
		sso(c, m)
		c.Web.OIDC.SlackTeam = "T0HITL"
		c.Slack.Answerers = []string{"U0ALICE", "U0BOB", "U0CAROL"}
		c.Policy.Rules = []config.PolicyRule{{Name: "two eyes on /data", OpType: "file_delete", Resource: "/data/*",
			Effect: "ask", Approvers: []string{"U0ALICE", "U0BOB", "U0CAROL"}, Quorum: 2}}
	})
	e.api = client.NewClient(e.m.URL(), ciSecret)

	// webApprove approves question id in the web inbox as the signed-in browser.
	webApprove := func(t *testing.T, c *http.Client, id string) (int, string) {
		t.Helper()
		_, inbox := page(t, c, http.MethodGet, e.m.URL()+"/", nil)
		csrf := csrfOf.FindStringSubmatch(inbox)
		require.NotNil(t, csrf, inbox)
		return page(t, c, http.MethodPost, e.m.URL()+"/q/"+id+"/answer", url.Values{"csrf": {csrf[1]}, "decision": {hitl.Approve}})
	}
	signIn := func(t *testing.T, user, as string) *http.Client {
		t.Helper()
		c, status, body := oidcBrowserSignIn(t, e.m, user)
		require.Equal(t, http.StatusOK, status, body)
		_, inbox := page(t, c, http.MethodGet, e.m.URL()+"/", nil)
		require.Contains(t, inbox, "Signed in as "+as)
		return c
	}
	alice := signIn(t, "test-user@"+host, "slack:U0ALICE")
	bob := signIn(t, "test-user2", "slack:U0BOB")

	t.Run("Alice on the web, in Slack and by token counts once", func(t *testing.T) {
		out, waiting := e.request(t, hitl.Operation{Type: hitl.OpFileDelete, Description: "Drop old data", Resource: "/data/2019"})
		require.Equal(t, 2, out.Question.Quorum)
		msg := e.posted(t, testChannel, out.Question)
		status, body := webApprove(t, alice, out.QuestionID)
		require.Equal(t, http.StatusOK, status, body)

		e.click(t, "U0ALICE", msg, blocks.ActionApprove)
		e.ephemeralFor(t, "U0ALICE", "already counted")
		_, err := client.NewClient(e.m.URL(), aliceSecret).Answer(e.ctx, out.QuestionID, hitl.Response{Value: hitl.Approve})
		require.Equal(t, fault.EINVALID, fault.Code(err), "her token (slack_user U0ALICE) is her too: %v", err)
		assert.Contains(t, fault.Message(err), "1 of 2 approvals")

		e.click(t, "U0BOB", msg, blocks.ActionApprove)
		got := e.settled(t, waiting)
		assert.Equal(t, hitl.OutcomeApproved, got.Outcome(), "another person makes the quorum")
		assert.Equal(t, "slack:U0BOB", got.RespondedBy)
	})
	t.Run("Bob in Slack and on the web (his Slack profile's e-mail) counts once", func(t *testing.T) {
		out, waiting := e.request(t, hitl.Operation{Type: hitl.OpFileDelete, Description: "Drop older data", Resource: "/data/2018"})
		msg := e.posted(t, testChannel, out.Question)
		e.click(t, "U0BOB", msg, blocks.ActionApprove)
		_, err := e.srv.WaitForMessage(e.ctx, msg.Channel, func(m slackfake.Message) bool {
			return m.TS == msg.TS && strings.Contains(string(m.Blocks), "1 of 2 approvals")
		})
		require.NoError(t, err)
		status, body := webApprove(t, bob, out.QuestionID)
		assert.Equal(t, http.StatusBadRequest, status)
		assert.Contains(t, body, "already approved")
		requireQuestionPending(t, e, out.QuestionID)

		status, body = webApprove(t, alice, out.QuestionID)
		require.Equal(t, http.StatusOK, status, body)
		got := e.settled(t, waiting)
		assert.Equal(t, hitl.OutcomeApproved, got.Outcome())
		assert.Equal(t, "slack:U0ALICE", got.RespondedBy)
	})
	t.Run("while Slack cannot be asked, the sign-in fails rather than make a second person", func(t *testing.T) {
		e.srv.FailNext("users.lookupByEmail", 1, http.StatusInternalServerError, 0)
		_, status, body := oidcBrowserSignIn(t, e.m, "test-user2")
		assert.Equal(t, http.StatusServiceUnavailable, status, body)
		assert.Contains(t, body, "lookupByEmail")
		signIn(t, "test-user2", "slack:U0BOB") // and once Slack answers, he is himself
	})
	t.Run("a Slack sign-in from another workspace is refused", func(t *testing.T) {
		op.Slack("T0OTHER", map[string]string{oidctest.TestUser: "U0ALICE"})
		_, status, body := oidcBrowserSignIn(t, e.m, "test-user@"+host)
		assert.Equal(t, http.StatusForbidden, status, body)
		assert.Contains(t, body, "T0OTHER")
	})
}

// requireQuestionPending checks question id still waits.
func requireQuestionPending(t *testing.T, e *slackEnv, id string) {
	t.Helper()
	got, err := e.m.Service.Questions.Question(e.ctx, id)
	require.NoError(t, err)
	assert.True(t, got.Pending(), "the question still waits")
}
