package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/blocks"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startEdgeSlack: U0ALICE answers (and so steers); U0MALLORY is in the
// workspace but may neither answer nor steer.
func startEdgeSlack(t *testing.T) *slackEnv {
	t.Helper()
	return slackEnvOn(t, slackfake.New(t, slackfake.FailOnReject()), 30*time.Second, func(c *config.Config, _ *Main) {
		c.Slack.Answerers = []string{"U0ALICE"}
	})
}

func TestSlackEnvelopesFromAnotherWorkspaceAreRefused(t *testing.T) {
	e := startEdgeSlack(t)
	q, waiting := e.ask(t, "team-1", hitl.NewQuestion{Question: "Ship it?", ResponseType: hitl.BooleanResponse})
	msg := e.posted(t, testChannel, q)
	blockID, value := findElement(t, msg.Blocks, blocks.ActionYes)

	t.Run("a click from another team_id is acked and not processed", func(t *testing.T) {
		click := e.srv.BlockActions("U0ALICE", testChannel, msg.TS, blocks.ActionYes, blockID, value).FromTeam("T0EVIL")
		_, err := e.srv.SendInteractive(e.ctx, click)
		require.NoError(t, err)
		requirePending(t, e, q.ID)
	})
	t.Run("a slash command from another team_id is not answered", func(t *testing.T) {
		ack, err := e.srv.SendSlashCommand(e.ctx, e.srv.SlashCommand("U0ALICE", testChannel, "/hitl", "help").FromTeam("T0EVIL"))
		require.NoError(t, err)
		assert.Empty(t, ack.Payload, "refused envelopes get a bare ack")
	})
	t.Run("the same click from the bot's own team is taken", func(t *testing.T) {
		e.click(t, "U0ALICE", msg, blocks.ActionYes)
		assert.Equal(t, "slack:U0ALICE", e.settled(t, waiting).RespondedBy)
	})
}

func TestSlackPolicyShowsLearnedRulesToAnswerersOnly(t *testing.T) {
	e := startEdgeSlack(t)
	t.Run("someone who may not answer is told, and sees no rule", func(t *testing.T) {
		n := len(e.srv.Calls("response_url"))
		text := e.slash(t, "U0MALLORY", "policy")
		assert.Contains(t, text, "learned rules are shown only to those who answer")
		assert.Len(t, e.srv.Calls("response_url"), n, "no list is posted")
	})
	t.Run("an answerer gets the list", func(t *testing.T) {
		n := len(e.srv.Calls("response_url"))
		assert.Empty(t, e.slash(t, "U0ALICE", "policy"))
		_, err := e.srv.WaitForCalls(e.ctx, "response_url", n+1)
		require.NoError(t, err)
	})
}

func TestSlackRunPrefixesResolveAmongRunsThePersonMaySee(t *testing.T) {
	e := startEdgeSlack(t)
	for _, run := range []string{"secret-deploy-a", "secret-deploy-b"} {
		e.report(t, run, 1)
	}
	t.Run("someone who may not see runs learns no run id", func(t *testing.T) {
		for _, text := range []string{"status secret-deploy", "pause secret-deploy", "status secret-deploy-a"} {
			got := e.slash(t, "U0MALLORY", strings.TrimSuffix(text, "-a"))
			assert.NotContains(t, got, "secret-deploy-a", text)
			assert.NotContains(t, got, "secret-deploy-b", text)
			assert.Contains(t, got, "No run is named", text)
		}
		got := e.slash(t, "U0MALLORY", "status secret-deploy-a")
		assert.Contains(t, got, "No run is named", "an exact id they may not see is not found either")
	})
	t.Run("an answerer's prefix matches their runs", func(t *testing.T) {
		got := e.slash(t, "U0ALICE", "status secret-deploy")
		assert.Contains(t, got, "matches several runs")
		assert.Contains(t, got, "secret-deploy-a")
	})
}

// The message of a question names who really asked (the token or person)
// and shows the agent's own name for itself as a claim.
func TestSlackMessageShowsTheRealAsker(t *testing.T) {
	e := startTrustedSlack(t) // asks as the token ci
	q, _ := e.ask(t, "asker-1", hitl.NewQuestion{Question: "Rotate the key?", ResponseType: hitl.BooleanResponse,
		Context: &hitl.QuestionContext{Agent: "Your Security Team"}})
	msg := e.posted(t, testChannel, q)
	raw := string(msg.Blocks)
	assert.Contains(t, raw, "api:ci", "the token that asked")
	var flat []string
	var blocksJSON []map[string]any
	require.NoError(t, json.Unmarshal(msg.Blocks, &blocksJSON))
	for _, b := range blocksJSON {
		bj, _ := json.Marshal(b)
		flat = append(flat, string(bj))
	}
	assert.Contains(t, strings.Join(flat, "\n"), "(says)", "the agent's name is labelled as its claim")
}
