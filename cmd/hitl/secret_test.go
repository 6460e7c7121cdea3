package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/blocks"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// secretQuestion is the text of the sensitive questions below: stored in
// the clear, it shows the file grep reads the right file.
const secretQuestion = "Paste the deploy key for prod-eu"

// requireNoPlaintext reads m's raw bbolt file and checks that secret is
// nowhere in it, live records or freed pages.
func requireNoPlaintext(t *testing.T, m *Main, secrets ...string) {
	t.Helper()
	raw, err := os.ReadFile(m.Config.DB)
	require.NoError(t, err)
	require.True(t, bytes.Contains(raw, []byte(secretQuestion)), "the grep reads the service's database")
	for _, s := range secrets {
		require.False(t, bytes.Contains(raw, []byte(s)), "the database file holds the plaintext %q", s)
	}
}

// answerInModal answers msg's question with value through its Answer
// button and modal, as user, and checks that the modal closed.
func (e *slackEnv) answerInModal(tb testing.TB, user string, msg slackfake.Message, value string) {
	tb.Helper()
	opened := len(e.srv.Calls("views.open"))
	e.click(tb, user, msg, blocks.ActionAnswer)
	_, err := e.srv.WaitForCalls(e.ctx, "views.open", opened+1)
	require.NoError(tb, err)
	view, ok := e.srv.LastView()
	require.True(tb, ok)
	ack, err := e.srv.SendInteractive(e.ctx, e.srv.ViewSubmission(user, view, map[string]map[string]string{
		blocks.BlockAnswer: {blocks.InputActionID: value}}))
	require.NoError(tb, err)
	require.Nil(tb, ack.Payload, "the answer was taken and the modal closed")
}

// receive waits for q as the agent that asked and takes its outcome.
func receive(t *testing.T, ctx context.Context, api *client.Client, id string) *hitl.Question {
	t.Helper()
	got, err := api.Wait(ctx, id)
	require.NoError(t, err)
	require.Equal(t, hitl.StatusAnswered, got.Status)
	got, err = api.Receive(ctx, id)
	require.NoError(t, err)
	return got
}

func TestSecretSealedFromSlackModalToAgent(t *testing.T) {
	e := startTrustedSlack(t)
	const secret = "sk-live-ZEBRA-7731-sealed-in-slack"
	q, _, err := e.api.Create(e.ctx, "secret-slack", hitl.NewQuestion{Question: secretQuestion, Sensitive: true})
	require.NoError(t, err)
	e.answerInModal(t, "U0ANSWER", e.posted(t, testChannel, q), secret)

	t.Run("the answer is durable but only sealed in the database file", func(t *testing.T) {
		stored, err := e.m.DB.Question(e.ctx, q.ID)
		require.NoError(t, err)
		assert.Equal(t, hitl.StatusAnswered, stored.Status)
		require.NotNil(t, stored.Response)
		assert.NotNil(t, stored.Response.Sealed, "stored sealed")
		requireNoPlaintext(t, e.m, secret)
	})
	t.Run("the asking agent receives the secret", func(t *testing.T) {
		got := receive(t, e.ctx, e.api, q.ID)
		assert.Equal(t, secret, got.Response.Value)
		assert.Equal(t, "slack:U0ANSWER", got.RespondedBy)
	})
	t.Run("the secret is received once", func(t *testing.T) {
		_, err := e.api.Receive(e.ctx, q.ID)
		assert.Equal(t, fault.ECONFLICT, fault.Code(err), "%v", err)
	})
	t.Run("another token may not receive it", func(t *testing.T) {
		_, err := client.NewClient(e.m.URL(), aliceSecret).Receive(e.ctx, q.ID)
		assert.Equal(t, fault.EFORBIDDEN, fault.Code(err), "%v", err)
	})
	t.Run("after delivery the database file still has no plaintext", func(t *testing.T) {
		requireNoPlaintext(t, e.m, secret)
	})
}

func TestSecretSealedLostToRestartIsAskedAgainInSlack(t *testing.T) {
	ctx, cancel := context.WithTimeout(principaltest.As(context.Background(), "admin:test"), 30*time.Second)
	defer cancel()
	srv := slackfake.New(t, slackfake.FailOnReject())
	sameDB := dbFile(t)
	const lost, again = "sk-live-LOST-4242-before-restart", "sk-live-AGAIN-9191-after-restart"

	first := startMainNoCleanup(t, sameDB, withSlack(srv), withTrust)
	require.NoError(t, srv.WaitConnected(ctx, 1))
	e := &slackEnv{ctx: ctx, m: first, srv: srv, api: client.NewClient(first.URL(), ciSecret)}
	q, _, err := e.api.Create(ctx, "secret-restart", hitl.NewQuestion{Question: secretQuestion, Sensitive: true})
	require.NoError(t, err)
	msg := e.posted(t, testChannel, q)
	e.answerInModal(t, "U0ANSWER", msg, lost)
	e.updated(t, msg) // shown answered before the restart
	requireNoPlaintext(t, first, lost)
	require.NoError(t, first.Close())

	second := startMain(t, sameDB, withSlack(srv), withTrust)
	require.NoError(t, srv.WaitConnected(ctx, 2))
	e.m, e.api = second, client.NewClient(second.URL(), ciSecret)

	t.Run("the question waits again with a notice", func(t *testing.T) {
		got, err := second.Service.Questions.Question(ctx, q.ID)
		require.NoError(t, err)
		assert.True(t, got.Pending())
		assert.Nil(t, got.Response)
		assert.Contains(t, got.Notice, "never stored")
		got, err = e.api.Receive(ctx, q.ID)
		require.NoError(t, err)
		assert.True(t, got.Pending(), "the agent receives nothing yet")
	})
	var reopened slackfake.Message
	t.Run("its Slack message is updated in place with the notice and its inputs", func(t *testing.T) {
		reopened, err = srv.WaitForMessage(ctx, testChannel, func(m slackfake.Message) bool {
			b := string(m.Blocks)
			return m.TS == msg.TS && m.Updated && strings.Contains(b, "never stored") && strings.Contains(b, `"type":"actions"`)
		})
		require.NoError(t, err, "message %s was not updated with the notice", msg.TS)
		assert.Len(t, srv.Messages(testChannel), 1, "no second message was posted")
	})
	t.Run("the lost secret is nowhere in the database file", func(t *testing.T) {
		requireNoPlaintext(t, second, lost)
	})
	t.Run("the reopening is in the event log", func(t *testing.T) {
		evs, _, err := second.Service.Log.Events(principaltest.As(ctx, "admin:t"), 0, 0)
		require.NoError(t, err)
		var found bool
		for _, ev := range evs {
			if ev.Type == hitl.EventQuestionReopened && ev.QuestionID == q.ID {
				found = true
				assert.Equal(t, auth.ActorSystem, ev.Actor)
			}
		}
		assert.True(t, found, "no question_reopened event")
	})
	t.Run("answering again delivers the new secret to the agent", func(t *testing.T) {
		require.NotEmpty(t, reopened.TS)
		e.answerInModal(t, "U0ANSWER", reopened, again)
		got := receive(t, ctx, e.api, q.ID)
		assert.Equal(t, again, got.Response.Value)
		assert.Empty(t, got.Notice, "the notice went with the new answer")
		after := e.updated(t, reopened)
		assert.NotContains(t, string(after.Blocks), "never stored")
		requireNoPlaintext(t, second, lost, again)
	})
}

func TestSecretSealedLostToRestartIsAskedAgain(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sameDB := dbFile(t)
	const lost, again = "hunter2-LOST-5151-tokenless", "hunter2-AGAIN-6262-tokenless"
	person := principaltest.As(ctx, "local:tester")

	first := startMainNoCleanup(t, sameDB)
	q, _, err := client.NewClient(first.URL(), "").Create(ctx, "secret-plain", hitl.NewQuestion{Question: secretQuestion, Sensitive: true})
	require.NoError(t, err)
	_, err = first.Service.Questions.Answer(person, q.ID, hitl.Response{Value: lost})
	require.NoError(t, err)
	requireNoPlaintext(t, first, lost)
	require.NoError(t, first.Close())

	second := startMain(t, sameDB)
	api := client.NewClient(second.URL(), "")
	t.Run("the question waits again with a notice", func(t *testing.T) {
		got, err := api.Question(ctx, q.ID)
		require.NoError(t, err)
		assert.True(t, got.Pending())
		assert.Nil(t, got.Response)
		assert.Contains(t, got.Notice, "please answer again")
	})
	t.Run("the lost secret is nowhere in the database file", func(t *testing.T) {
		requireNoPlaintext(t, second, lost)
	})
	t.Run("answering again delivers the new secret once", func(t *testing.T) {
		_, err := second.Service.Questions.Answer(person, q.ID, hitl.Response{Value: again})
		require.NoError(t, err)
		got := receive(t, ctx, api, q.ID)
		assert.Equal(t, again, got.Response.Value)
		_, err = api.Receive(ctx, q.ID)
		assert.Equal(t, fault.ECONFLICT, fault.Code(err), "%v", err)
		requireNoPlaintext(t, second, lost, again)
	})
}
