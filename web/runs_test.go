package web_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loop has the agent report iteration iter of max on run.
func (e *env) loop(run string, iter, max int, model string) {
	e.t.Helper()
	_, err := e.svc.Runs.Checkpoint(as(agentP), steer.StateEvent{RunID: run, Stack: []steer.StackEntry{{ID: run, Mode: "issue", Iter: iter, Max: max, Model: model}}})
	require.NoError(e.t, err)
}

func TestRuns(t *testing.T) {
	e := newEnv(t, false)
	e.loop("loop-1", 3, 10, "sonnet")
	q := e.ask("loop-1", hitl.NewQuestion{Question: "Rename the API?", ResponseType: hitl.BooleanResponse})
	ops := e.browser(t)
	ops.signIn("ops-token-0123456789ab")

	t.Run("the console lists active runs with status, iteration, model and the question they wait on", func(t *testing.T) {
		body := ops.get("/runs").body
		assert.Contains(t, body, `<a href="/runs/loop-1">loop-1</a>`)
		assert.Contains(t, body, "<td>3/10</td>")
		assert.Contains(t, body, "<td>sonnet</td>")
		assert.Contains(t, body, "waiting_for_input")
		assert.Contains(t, body, q.Question)
		assert.NotContains(t, body, "Learned rules", "for admins only")
	})
	t.Run("a run page offers the steering controls that can succeed, by name", func(t *testing.T) {
		body := ops.get("/runs/loop-1").body
		for _, s := range []string{">Pause</button>", ">Cancel run</button>", ">Escalate</button>", ">Redirect</button>",
			"<label>Model <input", "<label>Instruction <input", `<dd class="iteration">3/10</dd>`} {
			assert.Contains(t, body, s)
		}
		assert.NotContains(t, body, ">Resume</button>", "a running loop is not paused")
	})
	t.Run("pause answers in plain words: received, then done", func(t *testing.T) {
		r := ops.post("/runs/loop-1/control", url.Values{"command": {"pause"}})
		assert.Equal(t, http.StatusOK, r.status, r.body)
		assert.Contains(t, r.body, "<li>Received: pause</li>")
		assert.Contains(t, r.body, "<li>Done: Loop paused at iteration 3 of 10</li>")
		assert.NotContains(t, r.body, "ACK")
		assert.NotContains(t, r.body, "RESULT")
		body := ops.get("/runs/loop-1").body
		assert.Contains(t, body, `<dd class="status">paused</dd>`)
		assert.Contains(t, body, ">Resume</button>")
		assert.NotContains(t, body, ">Pause</button>", "a paused loop is not paused again")
	})
	t.Run("escalate with a model and redirect with an instruction", func(t *testing.T) {
		r := ops.post("/runs/loop-1/control", url.Values{"command": {"escalate"}, "model": {"opus"}}, "X-Hitl-Fetch", "1")
		var v struct{ Messages []steer.ControlMessage }
		require.NoError(t, json.Unmarshal([]byte(r.body), &v))
		require.Len(t, v.Messages, 2)
		assert.Equal(t, steer.MessageAck, v.Messages[0].Type)
		assert.Equal(t, "opus", v.Messages[1].Payload.NewModel)
		r = ops.post("/runs/loop-1/control", url.Values{"command": {"redirect"}, "instruction": {"focus on tests"}})
		assert.Contains(t, r.body, "Instruction queued")
		assert.Contains(t, ops.get("/runs/loop-1").body, "focus on tests")
	})
	t.Run("escalate without a model gets a bad_request RESULT", func(t *testing.T) {
		r := ops.post("/runs/loop-1/control", url.Values{"command": {"escalate"}})
		assert.Contains(t, r.body, "bad_request")
	})
	t.Run("a person without the control scope sees no controls and is refused", func(t *testing.T) {
		alice := e.browser(t)
		alice.signIn("alice-token-0123456789")
		assert.NotContains(t, alice.get("/runs/loop-1").body, ">Pause</button>")
		r := alice.post("/runs/loop-1/control", url.Values{"command": {"resume"}})
		assert.Contains(t, r.body, "forbidden")
		assert.Contains(t, r.body, "lacks the control scope")
	})
	t.Run("the run page shows the interaction history", func(t *testing.T) {
		_, err := e.svc.Questions.Answer(as(aliceP), q.ID, hitl.Response{Value: "yes"})
		require.NoError(t, err)
		root := e.browser(t)
		root.signIn("root-token-0123456789a")
		body := root.get("/runs/loop-1").body
		assert.Contains(t, body, "Interaction history")
		assert.Contains(t, body, q.Question)
		assert.Contains(t, body, "api:alice")
		assert.Contains(t, ops.get("/runs/loop-1").body, "The questions are not shown to you", "the root's rule: control without answer")
		assert.Contains(t, ops.get("/runs/loop-1").body, "shown live to those who answer")
		assert.Contains(t, body, `id="activity"`, "who answers sees the run live")
	})
	t.Run("cancel run", func(t *testing.T) {
		r := ops.post("/runs/loop-1/control", url.Values{"command": {"cancel"}})
		assert.Contains(t, r.body, "Loop cancelled")
	})
}

func TestAdminConsole(t *testing.T) {
	e := newEnv(t, false)
	require.NoError(t, e.svc.Policies.LoadPolicy(context.Background(), nil))
	out, err := e.svc.Policies.RequestOperation(as(agentP), hitl.ApprovalRequest{RunID: "r1", Operation: hitl.Operation{Type: hitl.OpFileDelete, Description: "delete tmp", Resource: "tmp/x"}})
	require.NoError(t, err)
	_, err = e.svc.Questions.Answer(as(aliceP), out.QuestionID, hitl.Response{Value: "approve", Always: true})
	require.NoError(t, err)
	_, _, err = e.svc.SignIns.SignIn(context.Background(), agentP, time.Hour) // refused: audited
	require.Error(t, err)
	root := e.browser(t)
	root.signIn("root-token-0123456789a")
	body := root.get("/runs").body
	assert.Contains(t, body, "Learned rules")
	assert.Contains(t, body, "tmp/x")
	assert.Contains(t, body, "may not sign in to the web inbox", "the audit shows refusals")
	rules, err := e.svc.Policies.LearnedRules(as(rootP), hitl.LearnedRuleFilter{})
	require.NoError(t, err)
	require.Len(t, rules.Rules, 1)
	r := root.post("/rules/"+rules.Rules[0].ID+"/revoke", url.Values{})
	assert.Equal(t, http.StatusOK, r.status)
	assert.Contains(t, r.body, "Revoked learned")
	rules, err = e.svc.Policies.LearnedRules(as(rootP), hitl.LearnedRuleFilter{})
	require.NoError(t, err)
	assert.Empty(t, rules.Rules)
}

func TestEventStream(t *testing.T) {
	e := newEnv(t, false)
	q := e.ask("r1", hitl.NewQuestion{Question: "Live?", Type: hitl.Approval})
	b := e.browser(t)
	b.signIn("alice-token-0123456789")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.srv.URL+"/events", nil)
	require.NoError(t, err)
	res, err := b.c.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	rd := bufio.NewReader(res.Body)
	_, err = rd.ReadString('\n') // the opening comment: the stream is live
	require.NoError(t, err)
	_, err = e.svc.Questions.Answer(as(rootP), q.ID, hitl.Response{Value: "approve"})
	require.NoError(t, err)
	for {
		line, err := rd.ReadString('\n')
		require.NoError(t, err, "an event before the deadline")
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			var ev struct{ Type, QuestionID, Message string }
			require.NoError(t, json.Unmarshal([]byte(data), &ev))
			if ev.Type == "question_answered" {
				assert.Equal(t, q.ID, ev.QuestionID)
				assert.Contains(t, ev.Message, "was answered by api:root at ")
				return
			}
		}
	}
}

// TestEventStreamEndsOnClose: Close (hitl serve stopping) ends the
// pages' streams, so a graceful shutdown does not wait for them; the page
// reconnects once the service is back.
func TestEventStreamEndsOnClose(t *testing.T) {
	e := newEnv(t, false)
	b := e.browser(t)
	b.signIn("alice-token-0123456789")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.srv.URL+"/events", nil)
	require.NoError(t, err)
	res, err := b.c.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	rd := bufio.NewReader(res.Body)
	_, err = rd.ReadString('\n') // the opening comment: the stream is live
	require.NoError(t, err)
	e.handler.Close()
	_, err = io.Copy(io.Discard, rd)
	require.NoError(t, err, "the stream ends (before the deadline)")
}

func TestEventStreamNeedsASession(t *testing.T) {
	e := newEnv(t, false)
	r := e.browser(t).get("/events")
	assert.Equal(t, http.StatusUnauthorized, r.status)
}

func TestRunIDWithSlash(t *testing.T) {
	e := newEnv(t, false)
	e.loop("team/loop-9", 2, 5, "sonnet")
	ops := e.browser(t)
	ops.signIn("ops-token-0123456789ab")
	body := ops.get("/runs").body
	assert.Contains(t, body, `href="/runs/team%2Floop-9"`)
	r := ops.get("/runs/team%2Floop-9")
	assert.Equal(t, http.StatusOK, r.status)
	assert.Contains(t, r.body, "<h1>Run team/loop-9</h1>")
	assert.Contains(t, r.body, `action="/runs/team%2Floop-9/control"`)
	r = ops.post("/runs/team%2Floop-9/control", url.Values{"command": {"pause"}})
	assert.Contains(t, r.body, "Loop paused at iteration 2 of 5")
}

func TestEventStreamResumes(t *testing.T) {
	e := newEnv(t, false)
	q := e.ask("r1", hitl.NewQuestion{Question: "Missed?", Type: hitl.Approval})
	seen, err := e.svc.Log.LastSeq(context.Background())
	require.NoError(t, err)
	_, err = e.svc.Questions.Answer(as(rootP), q.ID, hitl.Response{Value: "approve"}) // while the page was away
	require.NoError(t, err)
	b := e.browser(t)
	b.signIn("alice-token-0123456789")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.srv.URL+"/events", nil)
	require.NoError(t, err)
	req.Header.Set("Last-Event-ID", fmt.Sprint(seen))
	res, err := b.c.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	rd := bufio.NewReader(res.Body)
	for {
		line, err := rd.ReadString('\n')
		require.NoError(t, err, "the missed answer before the deadline")
		if strings.HasPrefix(line, "data: ") && strings.Contains(line, `"type":"question_answered"`) {
			assert.Contains(t, line, q.ID)
			return
		}
	}
}
