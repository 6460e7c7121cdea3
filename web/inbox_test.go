package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestInbox(t *testing.T) {
	e := newEnv(t, false)
	later := 60.0
	soon := 5.0
	a := e.ask("r1", hitl.NewQuestion{Question: "Later question", TimeoutMinutes: &later})
	b := e.ask("r2", hitl.NewQuestion{Question: "Sooner approval", Type: hitl.Approval, TimeoutMinutes: &soon})
	mine := e.ask("r1", hitl.NewQuestion{Question: "Assigned to Alice", Assignees: []string{"U0ALICE"}})
	e.ask("r1", hitl.NewQuestion{Question: "Assigned to Bob", Assignees: []string{"U0BOB"}})
	own, _, err := e.svc.Questions.Create(as(auth.TokenPrincipal("alice-agent", []auth.Scope{auth.ScopeAsk}, "U0ALICE")), "r3", hitl.NewQuestion{Question: "Alice's own agent asks"})
	require.NoError(t, err)
	br := e.browser(t)
	br.signIn("alice-token-0123456789")

	t.Run("the queue holds what waits on the person, soonest deadline first", func(t *testing.T) {
		body := br.get("/").body
		assert.Contains(t, body, "Assigned to Alice")
		assert.NotContains(t, body, "Assigned to Bob")
		assert.NotContains(t, body, own.Question, "never one's own")
		ia, ib := strings.Index(body, a.Question), strings.Index(body, b.Question)
		require.True(t, ia > 0 && ib > 0)
		assert.Less(t, ib, ia, "the sooner deadline comes first")
		assert.Contains(t, body, "<title>(3) Inbox · hitl</title>", "the tab title counts what waits")
		assert.Contains(t, body, `data-deadline="`+b.TimeoutAt.Format(time.RFC3339)+`"`, "a countdown to the deadline")
	})
	t.Run("filters by type, run and assigned to me", func(t *testing.T) {
		body := br.get("/?type=approval").body
		assert.Contains(t, body, b.Question)
		assert.NotContains(t, body, a.Question)
		body = br.get("/?run=r2").body
		assert.Contains(t, body, b.Question)
		assert.NotContains(t, body, mine.Question)
		body = br.get("/?mine=1").body
		assert.Contains(t, body, mine.Question)
		assert.NotContains(t, body, a.Question)
	})
	t.Run("a bad filter is a visible 400", func(t *testing.T) {
		r := br.get("/?type=bogus")
		assert.Equal(t, http.StatusBadRequest, r.status)
		assert.Contains(t, r.body, "is not a question type")
	})
	t.Run("a control-only token has no queue", func(t *testing.T) {
		ops := e.browser(t)
		ops.signIn("ops-token-0123456789ab")
		assert.Contains(t, ops.get("/").body, "you do not answer questions")
	})
}

func TestInboxPages(t *testing.T) {
	e := newEnv(t, false)
	for range 120 {
		e.ask("r1", hitl.NewQuestion{Question: "Many"})
	}
	b := e.browser(t)
	b.signIn("root-token-0123456789a")
	r := b.get("/")
	assert.Equal(t, 50, strings.Count(r.body, `class="q"`))
	i := strings.Index(r.body, "cursor=")
	require.Greater(t, i, 0, "a next page link")
	next := r.body[i+len("cursor=") : i+strings.Index(r.body[i:], `"`)]
	r = b.get("/?cursor=" + next)
	assert.Equal(t, 50, strings.Count(r.body, `class="q"`))
}

func TestAgentTextIsEscaped(t *testing.T) {
	e := newEnv(t, false)
	q := e.ask("r1", hitl.NewQuestion{Question: `<script>alert("q")</script>`, Context: &hitl.QuestionContext{ProjectName: `<img src=x onerror=alert(1)>`},
		Options: []hitl.Option{{Label: `<b>bold</b>`, Value: `"><script>x</script>`}}})
	b := e.browser(t)
	b.signIn("alice-token-0123456789")
	for _, path := range []string{"/", "/q/" + q.ID, "/runs/r1"} {
		body := b.get(path).body
		assert.NotContains(t, body, `<script>alert`, path)
		assert.NotContains(t, body, `<img src=x`, path)
		assert.NotContains(t, body, `<b>bold</b>`, path)
		assert.NotContains(t, body, `"><script>x`, path)
	}
	body := b.get("/").body
	assert.Contains(t, body, `&lt;script&gt;alert(&#34;q&#34;)&lt;/script&gt;`)
}

func TestAnswer(t *testing.T) {
	e := newEnv(t, false)
	b := e.browser(t)
	b.signIn("alice-token-0123456789")
	answer := func(q *hitl.Question, form url.Values) resp {
		t.Helper()
		return b.post("/q/"+q.ID+"/answer", form)
	}
	t.Run("approve", func(t *testing.T) {
		q := e.ask("r1", hitl.NewQuestion{Question: "Deploy?", Type: hitl.Approval})
		assert.Contains(t, b.get("/").body, `>Approve</button>`)
		r := answer(q, url.Values{"decision": {"approve"}})
		assert.Equal(t, http.StatusOK, r.status, r.body)
		assert.Equal(t, hitl.OutcomeApproved, e.question(q.ID).Outcome())
	})
	t.Run("approve with message", func(t *testing.T) {
		q := e.ask("r1", hitl.NewQuestion{Question: "Deploy?", Type: hitl.Approval})
		answer(q, url.Values{"decision": {"approve_message"}, "message": {"after 5pm"}})
		got := e.question(q.ID)
		assert.Equal(t, hitl.OutcomeApproved, got.Outcome())
		assert.Equal(t, "after 5pm", got.Response.Text)
	})
	t.Run("deny with reason", func(t *testing.T) {
		q := e.ask("r1", hitl.NewQuestion{Question: "Drop table?", Type: hitl.Approval})
		answer(q, url.Values{"decision": {"deny"}, "reason": {"not today"}})
		got := e.question(q.ID)
		assert.Equal(t, hitl.OutcomeDenied, got.Outcome())
		assert.Equal(t, "not today", got.Response.Text)
	})
	t.Run("reply to the agent: not approved, the text delivered; blank is refused", func(t *testing.T) {
		q := e.ask("r1", hitl.NewQuestion{Question: "Migrate prod?", Type: hitl.Approval})
		assert.Contains(t, b.get("/").body, `<button type="submit" name="decision" value="reply">Reply</button>`)
		r := answer(q, url.Values{"decision": {"reply"}, "reply": {"  "}})
		assert.Equal(t, http.StatusBadRequest, r.status)
		assert.Contains(t, r.body, "needs text")
		assert.True(t, e.question(q.ID).Pending())
		r = answer(q, url.Values{"decision": {"reply"}, "reply": {"migrate staging first"}})
		assert.Equal(t, http.StatusOK, r.status, r.body)
		assert.Contains(t, r.body, "not approved")
		got := e.question(q.ID)
		assert.Equal(t, hitl.OutcomeReplied, got.Outcome())
		assert.Equal(t, "migrate staging first", got.Response.Text)
	})
	t.Run("a choice by its option", func(t *testing.T) {
		q := e.ask("r1", hitl.NewQuestion{Question: "Env?", Options: []hitl.Option{{Label: "Staging", Value: "staging"}, {Label: "Prod", Value: "prod"}}})
		assert.Contains(t, b.get("/").body, `<button type="submit" name="value" value="prod">Prod</button>`)
		answer(q, url.Values{"value": {"prod"}})
		assert.Equal(t, "prod", e.question(q.ID).Response.Value)
	})
	t.Run("a choice of many is a select with Send", func(t *testing.T) {
		var opts []hitl.Option
		for _, v := range []string{"a", "b", "c", "d", "e", "f"} {
			opts = append(opts, hitl.Option{Label: strings.ToUpper(v), Value: v})
		}
		q := e.ask("r1", hitl.NewQuestion{Question: "Letter?", Options: opts})
		body := b.get("/q/" + q.ID).body
		assert.Contains(t, body, `<select name="value">`)
		assert.Contains(t, body, `>Send</button>`)
		answer(q, url.Values{"value": {"f"}})
		assert.Equal(t, "f", e.question(q.ID).Response.Value)
	})
	t.Run("multi-select", func(t *testing.T) {
		q := e.ask("r1", hitl.NewQuestion{Question: "Which?", MultiSelect: true, Options: []hitl.Option{{Label: "A", Value: "a"}, {Label: "B", Value: "b"}, {Label: "C", Value: "c"}}})
		answer(q, url.Values{"value": {"c", "a"}})
		assert.Equal(t, []any{"a", "c"}, toAny(e.question(q.ID).Response.Value))
	})
	t.Run("yes/no", func(t *testing.T) {
		q := e.ask("r1", hitl.NewQuestion{Question: "OK?", ResponseType: hitl.BooleanResponse})
		answer(q, url.Values{"value": {"no"}})
		assert.Equal(t, false, e.question(q.ID).Response.Value)
	})
	t.Run("free text", func(t *testing.T) {
		q := e.ask("r1", hitl.NewQuestion{Question: "Name?"})
		answer(q, url.Values{"value": {"hitl"}})
		assert.Equal(t, "hitl", e.question(q.ID).Response.Value)
	})
	t.Run("a sensitive answer goes in a password field and is never shown", func(t *testing.T) {
		q := e.ask("r1", hitl.NewQuestion{Question: "Token?", Sensitive: true})
		assert.Contains(t, b.get("/q/"+q.ID).body, `type="password" name="value"`)
		r := answer(q, url.Values{"value": {"s3cr3t-value"}})
		assert.Equal(t, http.StatusOK, r.status)
		assert.NotContains(t, r.body, "s3cr3t-value")
		assert.NotContains(t, b.get("/q/"+q.ID).body, "s3cr3t-value")
		got, err := e.svc.Questions.Receive(as(agentP), q.ID)
		require.NoError(t, err)
		assert.Equal(t, "s3cr3t-value", got.Response.Value, "the agent gets it")
	})
	t.Run("approve & always is offered only where the policy lets it apply", func(t *testing.T) {
		q := e.ask("r1", hitl.NewQuestion{Question: "Deploy?", Type: hitl.Approval})
		assert.NotContains(t, b.get("/q/"+q.ID).body, "Approve &amp; always")
	})
	t.Run("a late answer gets the root's message", func(t *testing.T) {
		q := e.ask("r1", hitl.NewQuestion{Question: "Late?", Type: hitl.Approval})
		_, err := e.svc.Questions.Answer(as(rootP), q.ID, hitl.Response{Value: "approve"})
		require.NoError(t, err)
		r := answer(q, url.Values{"decision": {"deny"}})
		assert.Equal(t, http.StatusConflict, r.status)
		assert.Contains(t, r.body, "was already answered by api:root at ")
		r = b.post("/q/"+q.ID+"/answer", url.Values{"decision": {"deny"}}, "X-Hitl-Fetch", "1")
		var v struct{ Code, Message string }
		require.NoError(t, json.Unmarshal([]byte(r.body), &v))
		assert.Equal(t, "conflict", v.Code)
		assert.Contains(t, v.Message, "already answered by api:root")
	})
	t.Run("a bad answer is a visible 400 and decides nothing", func(t *testing.T) {
		q := e.ask("r1", hitl.NewQuestion{Question: "Env?", Options: []hitl.Option{{Label: "A", Value: "a"}}})
		r := answer(q, url.Values{"value": {"zzz"}})
		assert.Equal(t, http.StatusBadRequest, r.status)
		assert.Contains(t, r.body, "is not one of the options")
		assert.True(t, e.question(q.ID).Pending())
	})
	t.Run("an unknown question is a 404", func(t *testing.T) {
		assert.Equal(t, http.StatusNotFound, b.get("/q/q_nope").status)
	})
}

func toAny(v any) []any {
	switch v := v.(type) {
	case []string:
		out := make([]any, len(v))
		for i, s := range v {
			out[i] = s
		}
		return out
	case []any:
		return v
	}
	return nil
}

func TestOperations(t *testing.T) {
	ctx := context.Background()
	t.Run("quorum progress shows who approved", func(t *testing.T) {
		e := newEnv(t, false)
		require.NoError(t, e.svc.Policies.LoadPolicy(ctx, []hitl.Rule{{Name: "two-people", OpType: hitl.OpFileDelete, Effect: hitl.EffectAsk, Quorum: 2}}))
		out, err := e.svc.Policies.RequestOperation(as(agentP), hitl.ApprovalRequest{RunID: "r1", Operation: hitl.Operation{Type: hitl.OpFileDelete, Description: "delete build", Resource: "build/"}})
		require.NoError(t, err)
		b := e.browser(t)
		b.signIn("alice-token-0123456789")
		r := b.post("/q/"+out.QuestionID+"/answer", url.Values{"decision": {"approve"}})
		assert.Contains(t, r.body, "is counted: 1 of 2 approvals")
		body := b.get("/q/" + out.QuestionID).body
		assert.Contains(t, body, "Approvals: 1 of 2 (by api:alice).")
		assert.Contains(t, body, "two-people", "the rule that asked")
		assert.Contains(t, body, "build/", "the resource")
	})
	t.Run("approve an operation with its input edited", func(t *testing.T) {
		e := newEnv(t, false)
		require.NoError(t, e.svc.Policies.LoadPolicy(ctx, nil))
		out, err := e.svc.Policies.RequestOperation(as(agentP), hitl.ApprovalRequest{RunID: "r1", Operation: hitl.Operation{Type: hitl.OpFileDelete, Description: "delete logs", Resource: "logs/"}})
		require.NoError(t, err)
		b := e.browser(t)
		b.signIn("alice-token-0123456789")
		assert.Contains(t, b.get("/q/"+out.QuestionID).body, `<textarea name="edited" rows="2">logs/</textarea>`)
		r := b.post("/q/"+out.QuestionID+"/answer", url.Values{"decision": {"edited"}, "edited": {"logs/old/"}})
		require.Equal(t, http.StatusOK, r.status, r.body)
		assert.Equal(t, "logs/old/", e.question(out.QuestionID).Response.Edited)
	})
	t.Run("approve a file change with its content edited", func(t *testing.T) {
		e := newEnv(t, false)
		require.NoError(t, e.svc.Policies.LoadPolicy(ctx, nil))
		op := hitl.Operation{Type: hitl.OpFileWrite, Description: "Write /w/notes.md", Resource: "/w/notes.md", Content: "one\n",
			Diffs: []hitl.FileDiff{{Path: "/w/notes.md", Change: hitl.FileNew, Added: 1, Unified: "--- /dev/null\n+++ b/w/notes.md\n@@ -0,0 +1 @@\n+one\n"}}}
		out, err := e.svc.Policies.RequestOperation(as(agentP), hitl.ApprovalRequest{RunID: "r1", Operation: op})
		require.NoError(t, err)
		b := e.browser(t)
		b.signIn("alice-token-0123456789")
		body := b.get("/q/" + out.QuestionID).body
		assert.Contains(t, body, `<input type="text" name="edited" value="/w/notes.md" spellcheck="false">`, "the path")
		assert.Contains(t, body, `<textarea name="editedContent" rows="2" spellcheck="false">one`+"\n"+`</textarea>`, "the content")
		assert.Contains(t, body, "asks again")
		// a form posted without the script: CRLF line breaks, the path as it was
		r := b.post("/q/"+out.QuestionID+"/answer", url.Values{"decision": {"edited"}, "edited": {"/w/notes.md"}, "editedContent": {"one\r\ntwo\r\n"}})
		require.Equal(t, http.StatusOK, r.status, r.body)
		got := e.question(out.QuestionID).Response
		assert.Equal(t, "one\ntwo\n", got.EditedContent, "the agent's line breaks")
		assert.Empty(t, got.Edited, "an unchanged path is no edit")
		assert.Contains(t, r.body, "It does not run yet")
	})
	t.Run("approve & always where the policy lets it apply", func(t *testing.T) {
		e := newEnv(t, false)
		require.NoError(t, e.svc.Policies.LoadPolicy(ctx, nil))
		out, err := e.svc.Policies.RequestOperation(as(agentP), hitl.ApprovalRequest{RunID: "r1", Operation: hitl.Operation{Type: hitl.OpFileDelete, Description: "delete tmp", Resource: "tmp/x"}})
		require.NoError(t, err)
		require.True(t, out.Question.Learnable)
		b := e.browser(t)
		b.signIn("alice-token-0123456789")
		assert.Contains(t, b.get("/").body, "Approve &amp; always")
		r := b.post("/q/"+out.QuestionID+"/answer", url.Values{"decision": {"always"}})
		require.Equal(t, http.StatusOK, r.status, r.body)
		rules, err := e.svc.Policies.LearnedRules(as(rootP), hitl.LearnedRuleFilter{})
		require.NoError(t, err)
		require.Len(t, rules.Rules, 1)
		assert.Equal(t, "tmp/x", rules.Rules[0].Resource)
	})
}

func TestBatch(t *testing.T) {
	e := newEnv(t, false)
	a1 := e.ask("r1", hitl.NewQuestion{Question: "One?", Type: hitl.Approval})
	a2 := e.ask("r1", hitl.NewQuestion{Question: "Two?", Type: hitl.Approval})
	txt := e.ask("r1", hitl.NewQuestion{Question: "Text?"})
	bob := e.ask("r1", hitl.NewQuestion{Question: "Bob's?", Type: hitl.Approval, Assignees: []string{"U0BOB"}})
	b := e.browser(t)
	b.signIn("alice-token-0123456789")
	r := b.post("/batch", url.Values{"id": {a1.ID, a2.ID, txt.ID, bob.ID}, "decision": {"deny"}, "reason": {"batch"}})
	assert.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, hitl.OutcomeDenied, e.question(a1.ID).Outcome())
	assert.Equal(t, hitl.OutcomeDenied, e.question(a2.ID).Outcome())
	assert.True(t, e.question(txt.ID).Pending(), "a batch decides approvals only")
	assert.True(t, e.question(bob.ID).Pending(), "each by the same rules as alone")
	assert.Equal(t, 2, strings.Count(r.body, `class="ok"`))
	assert.Equal(t, 2, strings.Count(r.body, `class="refused"`))
	assert.Contains(t, r.body, "is assigned to U0BOB")
	r = b.post("/batch", url.Values{"decision": {"approve"}})
	assert.Equal(t, http.StatusBadRequest, r.status)
}

// TestRunByItsHandle: the inbox and a question's page name its run by its
// handle, as hitl runs does; the link's title and the run's page have the
// full id.
func TestRunByItsHandle(t *testing.T) {
	e := newEnv(t, false)
	const run = "claude-3f2b8c1e-9d7a-4c1b-8e2f-0a1b2c3d4e5f"
	q := e.ask(run, hitl.NewQuestion{Question: "Ship it?", Type: hitl.Approval})
	b := e.browser(t)
	b.signIn("alice-token-0123456789")
	link := `<a href="/runs/` + run + `" title="` + run + `">claude-3f2b</a>`
	assert.Contains(t, b.get("/").body, link, "the inbox row")
	assert.Contains(t, b.get("/q/"+q.ID).body, link, "the question's page")
}
