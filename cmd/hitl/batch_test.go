package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/blocks"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/hitlbot/hitl/slack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// batchPolicy: shell commands ask one person (the approval protocol's default); a
// deploy to prod needs two of the approvers (no approvers: any two).
func batchPolicy(approvers ...string) func(*config.Config, *Main) {
	return func(c *config.Config, _ *Main) {
		c.Policy.Rules = []config.PolicyRule{{Name: "two-person-deploys", OpType: "deploy", Resource: "prod/*", Effect: "ask",
			Approvers: approvers, Quorum: 2}}
		c.RateLimits.RunPerMinute, c.RateLimits.TokenPerMinute = 0, 0 // dozens of approvals at once
	}
}

// askApprovals asks n approvals in run through the API, oldest first; the
// third (index 2) is a quorum-2 deploy, the others shell commands.
func askApprovals(t *testing.T, m *Main, run string, n int) []*hitl.Question {
	t.Helper()
	ctx := principaltest.As(t.Context(), "local")
	qs := make([]*hitl.Question, n)
	for i := range qs {
		op := hitl.Operation{Type: hitl.OpShell, Description: fmt.Sprintf("Clean build %d", i), Resource: fmt.Sprintf("rm -rf /tmp/build-%d", i)}
		if i == 2 {
			op = hitl.Operation{Type: "deploy", Description: "Deploy build 41", Resource: "prod/web"}
		}
		out, err := m.Service.Policies.RequestOperation(ctx, hitl.ApprovalRequest{Operation: op, RunID: run})
		require.NoError(t, err)
		require.Equal(t, hitl.EffectAsk, out.Effect, op.Resource)
		qs[i] = out.Question
	}
	require.Equal(t, 2, qs[2].Quorum)
	return qs
}

// picks is the checkbox state selecting these page indexes.
func picks(idx ...int) map[string]map[string]string {
	groups := map[string][]string{}
	for _, i := range idx {
		g := fmt.Sprintf("pick/%d", i/blocks.MaxCheckboxes)
		groups[g] = append(groups[g], fmt.Sprint(i))
	}
	out := map[string]map[string]string{}
	for g, v := range groups {
		out[g] = map[string]string{blocks.InputActionID: strings.Join(v, ",")}
	}
	return out
}

// listed is the ids a batch modal lists (its private_metadata).
func listed(t *testing.T, v slackfake.View) []string {
	t.Helper()
	var m struct {
		IDs []string `json:"ids"`
	}
	require.NoError(t, json.Unmarshal([]byte(v.PrivateMetadata), &m))
	return m.IDs
}

func TestSlackBatchApproval(t *testing.T) {
	e := slackEnvOn(t, slackfake.New(t, slackfake.FailOnReject()), 60*time.Second, batchPolicy("U0ALICE", "U0BOB"), func(c *config.Config, m *Main) {
		c.Slack.RunsChannel, c.Slack.Answerers = runsChannel, []string{"U0ALICE", "U0BOB", "U0CAROL"}
		tune := m.SlackTuning
		m.SlackTuning = func(bc *slack.Config) {
			tune(bc)
			bc.RunUpdateEvery = time.Millisecond
		}
	})
	m := e.m

	t.Run("half of twelve selected: exactly those answered, the quorum item counts one vote, one answered meanwhile is reported", func(t *testing.T) {
		e.report(t, "batch-run", 1) // the run's live message
		qs := askApprovals(t, m, "batch-run", 12)
		live := e.liveMessage(t, "batch-run", has("Review 12 approvals"))
		e.click(t, "U0ALICE", live, blocks.ActionReview)
		_, err := e.srv.WaitForCall(e.ctx, "views.open", func(c slackfake.Call) bool { return strings.Contains(string(c.Body), blocks.CallbackBatch) })
		require.NoError(t, err)
		view, _ := e.srv.LastView()
		require.Equal(t, blocks.CallbackBatch, view.CallbackID)
		ids := listed(t, view)
		require.Len(t, ids, 12, "every pending approval of the run, one page")
		for i, q := range qs {
			require.Equal(t, q.ID, ids[i], "oldest first")
			assert.Contains(t, string(view.Blocks), "`"+q.Operation.Resource+"`", "each item shows its command line")
		}
		// Bob approves item 4 while Alice decides.
		_, err = m.Service.Questions.Answer(principaltest.As(e.ctx, "slack:U0BOB"), qs[4].ID, hitl.Response{Value: hitl.Approve})
		require.NoError(t, err)

		values := picks(0, 2, 4, 6, 8, 10)
		values[blocks.BlockBatchDecision] = map[string]string{blocks.InputActionID: hitl.Approve}
		ack, err := e.srv.SendInteractive(e.ctx, e.srv.ViewSubmission("U0ALICE", view, values))
		require.NoError(t, err)
		assert.Contains(t, string(ack.Payload), `"response_action":"update"`)

		for i, q := range qs {
			got := question(t, m, q.ID)
			switch i {
			case 0, 6, 8, 10:
				assert.Equal(t, hitl.OutcomeApproved, got.Outcome(), "item %d", i)
				assert.Equal(t, "slack:U0ALICE", got.RespondedBy, "item %d", i)
			case 2:
				assert.True(t, got.Pending(), "a quorum of two is not met by one batch")
				require.Len(t, got.Approvals, 1)
				assert.Equal(t, "slack:U0ALICE", got.Approvals[0].By)
			case 4:
				assert.Equal(t, "slack:U0BOB", got.RespondedBy, "Bob's answer stands")
			default:
				assert.True(t, got.Pending(), "item %d was not selected", i)
				assert.Empty(t, got.Approvals)
			}
		}
		report, _ := e.srv.LastView()
		assert.Equal(t, view.ID, report.ID, "the modal was updated in place")
		assert.Contains(t, string(report.Blocks), "Answered 5")
		assert.Contains(t, string(report.Blocks), "1 of 2 approvals")
		assert.Contains(t, string(report.Blocks), "Refused 1")
		assert.Contains(t, string(report.Blocks), qs[4].ID+"` — question "+qs[4].ID+" was already answered by slack:U0BOB")
		assert.Len(t, listed(t, report), 7, "the next page: the six passed over and the deploy that waits for a second approver")

		t.Run("the same approver selecting the quorum item again is refused, not counted twice", func(t *testing.T) {
			e.click(t, "U0ALICE", live, blocks.ActionReview)
			require.Eventually(t, func() bool { v, _ := e.srv.LastView(); return v.User == "U0ALICE" && v.ID != view.ID }, 10*time.Second, 5*time.Millisecond)
			again, _ := e.srv.LastView()
			at := slices.Index(listed(t, again), qs[2].ID)
			require.GreaterOrEqual(t, at, 0)
			values := picks(at)
			values[blocks.BlockBatchDecision] = map[string]string{blocks.InputActionID: hitl.Approve}
			_, err := e.srv.SendInteractive(e.ctx, e.srv.ViewSubmission("U0ALICE", again, values))
			require.NoError(t, err)
			report, _ := e.srv.LastView()
			assert.Contains(t, string(report.Blocks), "Refused 1")
			assert.Contains(t, string(report.Blocks), "slack:U0ALICE already approved "+qs[2].ID)
			got := question(t, m, qs[2].ID)
			assert.True(t, got.Pending())
			assert.Len(t, got.Approvals, 1)
		})
		t.Run("the second approver's batch meets the quorum", func(t *testing.T) {
			e.click(t, "U0BOB", live, blocks.ActionReview)
			require.Eventually(t, func() bool { v, _ := e.srv.LastView(); return v.User == "U0BOB" }, 10*time.Second, 5*time.Millisecond)
			bobs, _ := e.srv.LastView()
			at := -1
			for i, id := range listed(t, bobs) {
				if id == qs[2].ID {
					at = i
				}
			}
			require.GreaterOrEqual(t, at, 0)
			values := picks(at)
			values[blocks.BlockBatchDecision] = map[string]string{blocks.InputActionID: hitl.Approve}
			_, err := e.srv.SendInteractive(e.ctx, e.srv.ViewSubmission("U0BOB", bobs, values))
			require.NoError(t, err)
			assert.Equal(t, hitl.OutcomeApproved, question(t, m, qs[2].ID).Outcome())
		})
		t.Run("Deny selected denies with the one reason; an approval the person may not decide is refused, alone", func(t *testing.T) {
			deploy, err := m.Service.Policies.RequestOperation(principaltest.As(e.ctx, "local"), hitl.ApprovalRequest{RunID: "batch-run",
				Operation: hitl.Operation{Type: "deploy", Description: "Deploy build 42", Resource: "prod/api"}})
			require.NoError(t, err)
			e.click(t, "U0CAROL", live, blocks.ActionReview)
			require.Eventually(t, func() bool { v, _ := e.srv.LastView(); return v.User == "U0CAROL" }, 10*time.Second, 5*time.Millisecond)
			carols, _ := e.srv.LastView()
			ids := listed(t, carols)
			require.Len(t, ids, 7)
			require.Equal(t, deploy.QuestionID, ids[6])
			values := picks(0, 1, 6)
			values[blocks.BlockBatchDecision] = map[string]string{blocks.InputActionID: hitl.Deny}
			values[blocks.BlockBatchReason] = map[string]string{blocks.InputActionID: "not today"}
			_, err = e.srv.SendInteractive(e.ctx, e.srv.ViewSubmission("U0CAROL", carols, values))
			require.NoError(t, err)
			for _, id := range ids[:2] {
				got := question(t, m, id)
				assert.Equal(t, hitl.OutcomeDenied, got.Outcome())
				assert.Equal(t, "not today", got.Response.Text)
			}
			assert.True(t, question(t, m, deploy.QuestionID).Pending(), "Carol is not one of the deploy's approvers")
			report, _ := e.srv.LastView()
			assert.Contains(t, string(report.Blocks), "Answered 2")
			assert.Contains(t, string(report.Blocks), "Refused 1")
			assert.Contains(t, string(report.Blocks), "is not one of the approvers")
		})
		t.Run("nothing selected keeps the modal open and says so", func(t *testing.T) {
			opened := len(e.srv.OpenedViews())
			e.click(t, "U0ALICE", live, blocks.ActionReview)
			require.Eventually(t, func() bool { return len(e.srv.OpenedViews()) > opened }, 10*time.Second, 5*time.Millisecond)
			v, _ := e.srv.LastView()
			ack, err := e.srv.SendInteractive(e.ctx, e.srv.ViewSubmission("U0ALICE", v, map[string]map[string]string{
				blocks.BlockBatchDecision: {blocks.InputActionID: hitl.Approve}}))
			require.NoError(t, err)
			assert.Contains(t, string(ack.Payload), `"response_action":"errors"`)
			assert.Contains(t, string(ack.Payload), "select the approvals")
		})
	})
	t.Run("more than a page: Next shows the rest in the same modal", func(t *testing.T) {
		e.report(t, "batch-many", 1)
		askApprovals(t, m, "batch-many", 25)
		live := e.liveMessage(t, "batch-many", has("Review 25 approvals"))
		e.click(t, "U0ALICE", live, blocks.ActionReview)
		require.Eventually(t, func() bool {
			v, _ := e.srv.LastView()
			return strings.Contains(string(v.Blocks), "25 approvals are waiting")
		}, 10*time.Second, 5*time.Millisecond)
		first, _ := e.srv.LastView()
		assert.Len(t, listed(t, first), blocks.BatchPageSize)
		blockID, value := findElement(t, first.Blocks, blocks.ActionBatchNext)
		_, err := e.srv.SendInteractive(e.ctx, e.srv.ViewBlockActions("U0ALICE", first.ID, blocks.ActionBatchNext, blockID, value))
		require.NoError(t, err)
		require.Eventually(t, func() bool { v, _ := e.srv.LastView(); return v.Updates > 0 }, 10*time.Second, 5*time.Millisecond)
		second, _ := e.srv.LastView()
		assert.Len(t, listed(t, second), 5)
		assert.Contains(t, string(second.Blocks), "Showing 21–25")
	})
	t.Run("App Home offers Review for the person's own approvals", func(t *testing.T) {
		_, err := e.srv.SendEvent(e.ctx, e.srv.AppHomeOpened("U0CAROL"))
		require.NoError(t, err)
		var home slackfake.View
		require.Eventually(t, func() bool {
			home, _ = e.srv.HomeView("U0CAROL")
			return strings.Contains(string(home.Blocks), blocks.ActionReview)
		}, 10*time.Second, 5*time.Millisecond)
		blockID, value := findElement(t, home.Blocks, blocks.ActionReview)
		_, err = e.srv.SendInteractive(e.ctx, e.srv.ViewBlockActions("U0CAROL", home.ID, blocks.ActionReview, blockID, value))
		require.NoError(t, err)
		require.Eventually(t, func() bool {
			v, _ := e.srv.LastView()
			return v.User == "U0CAROL" && strings.Contains(string(v.Blocks), "waiting on you")
		}, 10*time.Second, 5*time.Millisecond)
	})
}

func TestWebBatchApproval(t *testing.T) {
	m := startMain(t, batchPolicy())
	qs := askApprovals(t, m, "web-batch", 12)
	// Another person approves item 4 while the page is open.
	_, err := m.Service.Questions.Answer(principaltest.As(t.Context(), "api:other"), qs[4].ID, hitl.Response{Value: hitl.Approve})
	require.NoError(t, err)

	c := browserClient(t)
	_, inbox := page(t, c, http.MethodGet, m.URL()+"/", nil)
	assert.Contains(t, inbox, "Approve selected")
	csrf := csrfOf.FindStringSubmatch(inbox)
	require.NotNil(t, csrf)
	form := url.Values{"csrf": {csrf[1]}, "decision": {"approve"}}
	for _, i := range []int{0, 2, 4, 6, 8, 10} {
		form.Add("id", qs[i].ID)
	}
	status, body := page(t, c, http.MethodPost, m.URL()+"/batch", form)
	require.Equal(t, http.StatusOK, status, body)
	for i, q := range qs {
		got := question(t, m, q.ID)
		switch i {
		case 0, 6, 8, 10:
			assert.Equal(t, hitl.OutcomeApproved, got.Outcome(), "item %d", i)
		case 2:
			assert.True(t, got.Pending(), "one vote of two")
			assert.Len(t, got.Approvals, 1)
		case 4:
			assert.Equal(t, "api:other", got.RespondedBy)
		default:
			assert.True(t, got.Pending(), "item %d was not selected", i)
		}
	}
	assert.Contains(t, body, "1 of 2 approvals")
	assert.Contains(t, body, "already answered by api:other")
}
