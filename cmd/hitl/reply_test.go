package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/blocks"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// replyEnv is the real service with fake Slack and the hook policy: the
// places a person replies from (Slack, web, CLI, API) and the agents that
// wait (Claude Code and Codex hooks, MCP, the Go SDK).
func replyEnv(t *testing.T) *slackEnv {
	t.Helper()
	return slackEnvOn(t, slackfake.New(t, slackfake.FailOnReject()), 90*time.Second, hookPolicy,
		withSlackSettings(func(s *config.Slack) { s.Answerers = []string{"U0ALICE"} }))
}

// replyInSlack replies to msg's approval through Reply to agent… and its
// modal, as user; it returns the modal's ack payload (nil: closed).
func (e *slackEnv) replyInSlack(tb testing.TB, user string, msg slackfake.Message, text string) json.RawMessage {
	tb.Helper()
	opened := len(e.srv.Calls("views.open"))
	e.click(tb, user, msg, blocks.ActionReply)
	_, err := e.srv.WaitForCalls(e.ctx, "views.open", opened+1)
	require.NoError(tb, err)
	view, ok := e.srv.LastView()
	require.True(tb, ok)
	assert.Equal(tb, blocks.CallbackReply, view.CallbackID)
	ack, err := e.srv.SendInteractive(e.ctx, e.srv.ViewSubmission(user, view, map[string]map[string]string{
		blocks.BlockReply: {blocks.InputActionID: text}}))
	require.NoError(tb, err)
	return ack.Payload
}

// replyOnTheWeb replies to question id from the web inbox (the local
// person on loopback) and returns the page's status and body.
func replyOnTheWeb(t *testing.T, m *Main, id, text string) (int, string) {
	t.Helper()
	c := browserClient(t)
	_, inbox := page(t, c, http.MethodGet, m.URL()+"/q/"+id, nil)
	require.Contains(t, inbox, `value="reply"`, "the question page offers Reply")
	csrf := csrfOf.FindStringSubmatch(inbox)
	require.NotNil(t, csrf)
	return page(t, c, http.MethodPost, m.URL()+"/q/"+id+"/answer", url.Values{"csrf": {csrf[1]}, "decision": {"reply"}, "reply": {text}})
}

// replyByAPI posts the questions API's answer with value reply, as documented in
// docs/reply-and-batch.md.
func replyByAPI(t *testing.T, m *Main, id, text string) (int, []byte) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"response": map[string]any{"type": "approval", "value": "reply", "text": text}})
	require.NoError(t, err)
	res, err := http.Post(m.URL()+"/api/questions/"+id+"/answer", "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, b
}

func TestReplyReachesEveryAgent(t *testing.T) {
	e := replyEnv(t)
	m, ctx := e.m, e.ctx
	bash := func(session string) string {
		return hookEvent(t, "claude_pretooluse_bash.json", map[string]any{"session_id": session})
	}

	t.Run("Claude Code PreToolUse, reply from the CLI: deny with the reply as the reason", func(t *testing.T) {
		ch := hookRun(ctx, m, cliOpts{}, bash("r-cli"), "claude")
		q := awaitPending(t, m, "claude-r-cli", 1)[0]
		r := cli(ctx, m, "", "answer", q.ID, "--reply", "run it against staging, not prod")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, "Replied to "+q.ID)
		d := decoded(t, result(t, ch))
		assert.Equal(t, "deny", d.PermissionDecision)
		assert.Contains(t, d.PermissionDecisionReason, "run it against staging, not prod")
		assert.Contains(t, d.PermissionDecisionReason, "replied")
		got := question(t, m, q.ID)
		assert.Equal(t, hitl.OutcomeReplied, got.Outcome())
	})
	t.Run("Claude Code PermissionRequest, reply from Slack's modal: deny with the reply as the message", func(t *testing.T) {
		ev := hookEvent(t, "claude_permissionrequest_bash.json", map[string]any{"session_id": "r-slack"})
		ch := hookRun(ctx, m, cliOpts{}, ev, "claude")
		q := awaitPending(t, m, "claude-r-slack", 1)[0]
		msg := e.posted(t, testChannel, q)
		assert.Nil(t, e.replyInSlack(t, "U0ALICE", msg, "use the staging database instead"), "the modal closed")
		d := decoded(t, result(t, ch))
		require.NotNil(t, d.Decision)
		assert.Equal(t, "deny", d.Decision.Behavior)
		assert.Contains(t, d.Decision.Message, "use the staging database instead")
		after := e.updated(t, msg)
		assert.Contains(t, string(after.Blocks), "Replied to the agent")
		assert.NotContains(t, string(after.Blocks), blocks.ActionReply, "the settled message has no buttons")
	})
	t.Run("Codex PermissionRequest, reply from the web: deny with the reply as the message", func(t *testing.T) {
		ev := hookEvent(t, "codex_permissionrequest_bash.json", map[string]any{"session_id": "r-web",
			"tool_input": map[string]any{"command": "git push origin main", "description": "Push"}})
		ch := hookRun(ctx, m, cliOpts{}, ev, "codex")
		q := awaitPending(t, m, "codex-r-web", 1)[0]
		status, body := replyOnTheWeb(t, m, q.ID, "open a pull request instead")
		assert.Equal(t, http.StatusOK, status, body)
		assert.Contains(t, body, "not approved")
		d := decoded(t, result(t, ch))
		require.NotNil(t, d.Decision)
		assert.Equal(t, "deny", d.Decision.Behavior)
		assert.Contains(t, d.Decision.Message, "open a pull request instead")
	})
	t.Run("MCP request_approval and permission_prompt, reply from the API: the text", func(t *testing.T) {
		c := nodeClient(t, m, "--run", "mcp-reply", "--progress-every", "200ms")
		c.call("ra", "request_approval", map[string]any{"operation": "Drop the cache table", "op_type": "shell", "resource": "psql -c 'drop table cache'"})
		q := awaitPending(t, m, "mcp-reply", 1)[0]
		status, body := replyByAPI(t, m, q.ID, "truncate it instead of dropping it")
		require.Equal(t, http.StatusOK, status, string(body))
		r := c.result("ra")
		assert.Equal(t, "replied", r.StructuredContent["decision"])
		assert.Equal(t, "truncate it instead of dropping it", r.StructuredContent["message"])
		assert.Contains(t, r.text(), "truncate it instead of dropping it")
		assert.Contains(t, r.text(), "Do not carry out the operation")

		c.call("pp", "permission_prompt", map[string]any{"tool_name": "Bash", "input": map[string]any{"command": "rm -rf dist"}, "tool_use_id": "toolu_9"})
		q = awaitPending(t, m, "mcp-reply", 1)[0]
		status, body = replyByAPI(t, m, q.ID, "keep dist, clean build/ only")
		require.Equal(t, http.StatusOK, status, string(body))
		var d map[string]any
		require.NoError(t, json.Unmarshal([]byte(c.result("pp").text()), &d))
		assert.Equal(t, "deny", d["behavior"])
		assert.Contains(t, d["message"], "keep dist, clean build/ only")
	})
	t.Run("Go SDK RequestApproval, reply from Slack: agent.Replied with the text", func(t *testing.T) {
		done := make(chan client.Decision, 1)
		go func() {
			d, err := e.api.RequestApproval(ctx, "sdk-reply", "Rotate the prod keys", client.ApprovalOptions{})
			if err != nil {
				d.Reason = "error: " + err.Error()
			}
			done <- d
		}()
		q := awaitPending(t, m, "sdk-reply", 1)[0]
		assert.Nil(t, e.replyInSlack(t, "U0ALICE", e.posted(t, testChannel, q), "wait for the maintenance window"))
		select {
		case d := <-done:
			assert.Equal(t, client.Replied, d.Outcome, d.Reason)
			assert.Equal(t, "wait for the maintenance window", d.Reply)
			assert.Equal(t, "slack:U0ALICE", d.By)
		case <-ctx.Done():
			t.Fatal("RequestApproval did not return")
		}
	})
	t.Run("the API: a waiting GET ?wait= returns the answer with value reply and the text", func(t *testing.T) {
		q, _, err := e.api.Create(ctx, "api-reply", hitl.NewQuestion{Question: "Deploy?", Type: hitl.Approval})
		require.NoError(t, err)
		type waited struct {
			status int
			body   []byte
		}
		ch := make(chan waited, 1)
		go func() {
			res, err := http.Get(m.URL() + "/api/questions/" + q.ID + "?wait=60s")
			if err != nil {
				ch <- waited{0, []byte(err.Error())}
				return
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			ch <- waited{res.StatusCode, b}
		}()
		status, body := replyByAPI(t, m, q.ID, "deploy tomorrow")
		require.Equal(t, http.StatusOK, status, string(body))
		w := <-ch
		require.Equal(t, http.StatusOK, w.status, string(w.body))
		var got struct {
			Question struct {
				Status   string         `json:"status"`
				Response map[string]any `json:"response"`
			} `json:"question"`
		}
		require.NoError(t, json.Unmarshal(w.body, &got), string(w.body))
		assert.Equal(t, "answered", got.Question.Status)
		assert.Equal(t, map[string]any{"type": "approval", "value": "reply", "text": "deploy tomorrow"}, got.Question.Response)
	})
	t.Run("a reply without text is refused everywhere and nothing is written", func(t *testing.T) {
		q, _, err := e.api.Create(ctx, "empty-reply", hitl.NewQuestion{Question: "Deploy?", Type: hitl.Approval})
		require.NoError(t, err)
		r := cli(ctx, m, "", "answer", q.ID, "--reply", " ")
		assert.Equal(t, exitUsage, r.code)
		assert.Contains(t, r.stderr, "needs text")
		r = cli(ctx, m, "", "answer", q.ID, "approve", "--reply", "x")
		assert.Equal(t, exitUsage, r.code, "a value and --reply together")
		status, body := replyByAPI(t, m, q.ID, "")
		assert.Equal(t, http.StatusBadRequest, status)
		assert.Contains(t, string(body), `"code":"invalid"`)
		status, page := replyOnTheWeb(t, m, q.ID, "")
		assert.Equal(t, http.StatusBadRequest, status)
		assert.Contains(t, page, "needs text")
		ack := e.replyInSlack(t, "U0ALICE", e.posted(t, testChannel, q), "   ")
		assert.Contains(t, string(ack), `"response_action":"errors"`, "the modal stays open")
		assert.Contains(t, string(ack), "needs text")
		assert.True(t, question(t, m, q.ID).Pending())
	})
	t.Run("hitl ask of an approval: a reply exits as not approved with the reply on stdout", func(t *testing.T) {
		ch := startCLI(ctx, m, strings.NewReader(""), "ask", "--type", "approval", "--run", "ask-reply", "Ship it?")
		q := awaitPending(t, m, "ask-reply", 1)[0]
		status, body := replyByAPI(t, m, q.ID, "ship on Monday")
		require.Equal(t, http.StatusOK, status, string(body))
		r := result(t, ch)
		assert.Equal(t, exitDenied, r.code)
		assert.Equal(t, "ship on Monday\n", r.stdout)
		assert.Contains(t, r.stderr, "replied")
	})
}
