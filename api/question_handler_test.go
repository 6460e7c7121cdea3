package api

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/api/wire"
	"github.com/hitlbot/hitl/fault"
	"github.com/stretchr/testify/require"
)

func TestAnswer(t *testing.T) {
	t.Run("answers_and_resumes_the_job", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		q := e.ask(t, "job-1", blockingQ)
		r := e.call(t, "POST", "/api/questions/"+q.ID+"/answer", `{"response":{"type":"choice","value":"Staging","text":"safer"}}`,
			wire.UserHeader, "alice")
		require.Equal(t, http.StatusOK, r.status, r.raw)
		require.Equal(t, true, r.body["success"])
		require.Equal(t, true, r.body["jobResumed"])
		got := sub(t, r.body, "question")
		require.Equal(t, "answered", got["status"])
		require.Equal(t, "local:alice", got["respondedBy"])
		require.Equal(t, map[string]any{"type": "choice", "value": "staging", "text": "safer"}, got["response"])
	})
	t.Run("job_still_waiting_is_not_resumed", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		q := e.ask(t, "job-1", textQ)
		e.ask(t, "job-1", hitl.NewQuestion{Question: "Delete?", Type: hitl.Approval})
		r := e.call(t, "POST", "/api/questions/"+q.ID+"/answer", `{"response":{"value":"Friday"}}`)
		require.Equal(t, http.StatusOK, r.status, r.raw)
		require.Equal(t, false, r.body["jobResumed"])
	})
	t.Run("second_answer_is_409_naming_who_answered", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		q := e.ask(t, "job-1", textQ)
		e.answer(t, q.ID, hitl.Response{Value: "Friday"})
		r := e.call(t, "POST", "/api/questions/"+q.ID+"/answer", `{"response":{"value":"Monday"}}`)
		requireError(t, r, http.StatusConflict, fault.ECONFLICT)
		require.Equal(t, "slack:U024BE7LH", r.body["answeredBy"])
		require.Equal(t, "2025-03-01T12:00:00Z", r.body["answeredAt"])
		require.Contains(t, r.body["message"], "already answered by slack:U024BE7LH")
	})
	t.Run("unknown_id_is_404", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		requireError(t, e.call(t, "POST", "/api/questions/q_nope/answer", `{"response":{"value":"x"}}`), 404, fault.ENOTFOUND)
	})
	for _, tc := range []struct{ name, body, want string }{
		{"wrong_response_type_is_400", `{"response":{"type":"boolean","value":true}}`, "does not match"},
		{"choice_not_an_option_is_400", `{"response":{"type":"choice","value":"dev"}}`, "not one of the options"},
		{"missing_response_is_400", `{}`, "response"},
		{"null_response_is_400", `{"response":null}`, "response"},
		{"bad_json_is_400", `{"response":`, "truncated"},
		{"unknown_field_is_400", `{"response":{"value":"prod"},"by":"me"}`, `"by"`},
		{"empty_body_is_400", ``, "required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, ServerConfig{})
			q := e.ask(t, "job-1", blockingQ)
			r := e.call(t, "POST", "/api/questions/"+q.ID+"/answer", tc.body)
			requireError(t, r, 400, fault.EINVALID)
			require.Contains(t, r.body["message"], tc.want)
		})
	}
	t.Run("too_large_is_413", func(t *testing.T) {
		e := newEnv(t, ServerConfig{MaxBodyBytes: 100})
		q := e.ask(t, "job-1", textQ)
		r := e.call(t, "POST", "/api/questions/"+q.ID+"/answer", `{"response":{"value":"`+strings.Repeat("x", 200)+`"}}`)
		requireError(t, r, 413, fault.ETOOLARGE)
	})
}

func TestCancel(t *testing.T) {
	t.Run("cancels_with_a_reason", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		q := e.ask(t, "job-1", textQ)
		r := e.call(t, "POST", "/api/questions/"+q.ID+"/cancel", `{"reason":"job finished"}`)
		require.Equal(t, http.StatusOK, r.status, r.raw)
		require.Equal(t, true, r.body["success"])
		got := sub(t, r.body, "question")
		require.Equal(t, "cancelled", got["status"])
		require.Equal(t, "job finished", got["cancelReason"])
	})
	t.Run("cancels_without_a_body", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		q := e.ask(t, "job-1", textQ)
		r := e.call(t, "POST", "/api/questions/"+q.ID+"/cancel", "")
		require.Equal(t, http.StatusOK, r.status, r.raw)
	})
	t.Run("settled_question_is_409", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		q := e.ask(t, "job-1", textQ)
		e.answer(t, q.ID, hitl.Response{Value: "x"})
		r := e.call(t, "POST", "/api/questions/"+q.ID+"/cancel", "")
		requireError(t, r, 409, fault.ECONFLICT)
		require.Equal(t, "slack:U024BE7LH", r.body["answeredBy"])
		require.Equal(t, "answered", r.body["status"])
	})
	t.Run("unknown_id_is_404", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		requireError(t, e.call(t, "POST", "/api/questions/q_nope/cancel", ""), 404, fault.ENOTFOUND)
	})
	t.Run("unknown_field_is_400", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		q := e.ask(t, "job-1", textQ)
		requireError(t, e.call(t, "POST", "/api/questions/"+q.ID+"/cancel", `{"why":"x"}`), 400, fault.EINVALID)
	})
	t.Run("too_large_is_413", func(t *testing.T) {
		e := newEnv(t, ServerConfig{MaxBodyBytes: 64})
		q := e.ask(t, "job-1", textQ)
		r := e.call(t, "POST", "/api/questions/"+q.ID+"/cancel", `{"reason":"`+strings.Repeat("x", 100)+`"}`)
		requireError(t, r, 413, fault.ETOOLARGE)
	})
	t.Run("too_long_reason_is_400", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		q := e.ask(t, "job-1", textQ)
		r := e.call(t, "POST", "/api/questions/"+q.ID+"/cancel", `{"reason":"`+strings.Repeat("x", hitl.MaxAnswerLen+1)+`"}`)
		requireError(t, r, 400, fault.EINVALID)
	})
}

func TestQuestion(t *testing.T) {
	t.Run("returns_the_question", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		q := e.ask(t, "job-1", blockingQ)
		r := e.call(t, "GET", "/api/questions/"+q.ID, "")
		require.Equal(t, http.StatusOK, r.status, r.raw)
		require.Equal(t, q.ID, sub(t, r.body, "question")["id"])
	})
	t.Run("unknown_id_is_404", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		requireError(t, e.call(t, "GET", "/api/questions/q_nope", ""), 404, fault.ENOTFOUND)
		requireError(t, e.call(t, "GET", "/api/questions/q_nope?wait=1s", ""), 404, fault.ENOTFOUND)
	})
	for _, w := range []string{"60", "soon", "-1s"} {
		t.Run("bad_wait_"+w+"_is_400", func(t *testing.T) {
			e := newEnv(t, ServerConfig{})
			q := e.ask(t, "job-1", textQ)
			requireError(t, e.call(t, "GET", "/api/questions/"+q.ID+"?wait="+w, ""), 400, fault.EINVALID)
		})
	}
	t.Run("long_poll_returns_when_answered", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		q := e.ask(t, "job-1", textQ)
		got := make(chan reply, 1)
		go func() { got <- e.call(t, "GET", "/api/questions/"+q.ID+"?wait=1m", "") }()
		e.w.until(t, "the long poll is parked", func(in, _, _ int) bool { return in == 1 })
		e.answer(t, q.ID, hitl.Response{Value: "Friday"})
		r := recv(t, got)
		require.Equal(t, http.StatusOK, r.status, r.raw)
		require.Equal(t, "answered", sub(t, r.body, "question")["status"])
	})
	t.Run("long_poll_returns_pending_after_a_short_wait", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		q := e.ask(t, "job-1", textQ)
		r := e.call(t, "GET", "/api/questions/"+q.ID+"?wait=20ms", "")
		require.Equal(t, http.StatusOK, r.status, r.raw)
		require.Equal(t, "pending", sub(t, r.body, "question")["status"])
	})
	t.Run("wait_is_capped_at_max_wait", func(t *testing.T) {
		e := newEnv(t, ServerConfig{MaxWait: 20 * time.Millisecond})
		q := e.ask(t, "job-1", textQ)
		r := e.call(t, "GET", "/api/questions/"+q.ID+"?wait=24h", "")
		require.Equal(t, http.StatusOK, r.status, r.raw)
		require.Equal(t, "pending", sub(t, r.body, "question")["status"])
	})
	t.Run("client_gone_ends_the_handler", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		q := e.ask(t, "job-1", textQ)
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			req, _ := http.NewRequestWithContext(ctx, "GET", e.http.URL+"/api/questions/"+q.ID+"?wait=5m", nil)
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				resp.Body.Close()
			}
			errc <- err
		}()
		e.w.until(t, "the long poll is parked", func(in, _, _ int) bool { return in == 1 })
		cancel()
		require.Error(t, recv(t, errc))
		e.w.until(t, "the handler has left Wait", func(in, _, left int) bool { return in == 0 && left == 1 })
	})
	t.Run("server_close_ends_long_polls_with_503", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		q := e.ask(t, "job-1", textQ)
		got := make(chan reply, 1)
		go func() { got <- e.call(t, "GET", "/api/questions/"+q.ID+"?wait=5m", "") }()
		e.w.until(t, "the long poll is parked", func(in, _, _ int) bool { return in == 1 })
		e.server.Close()
		requireError(t, recv(t, got), 503, fault.EUNAVAILABLE)
	})
}

func TestReceive(t *testing.T) {
	sensitive := hitl.NewQuestion{Question: "API key?", InputType: hitl.PasswordInput}
	t.Run("asker_receives_the_answer_once", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		r := e.call(t, "POST", "/api/jobs/job-1/questions", `{"question":"API key?","inputType":"password"}`, wire.UserHeader, "bot")
		id := r.body["questionId"].(string)
		e.answer(t, id, hitl.Response{Value: "s3cret"})
		shown := e.call(t, "GET", "/api/questions/"+id, "", wire.UserHeader, "bot")
		require.Equal(t, true, sub(t, sub(t, shown.body, "question"), "response")["redacted"])
		got := e.call(t, "POST", "/api/questions/"+id+"/receive", "", wire.UserHeader, "bot")
		require.Equal(t, http.StatusOK, got.status, got.raw)
		require.Equal(t, "s3cret", sub(t, sub(t, got.body, "question"), "response")["value"])
		again := e.call(t, "POST", "/api/questions/"+id+"/receive", "", wire.UserHeader, "bot")
		requireError(t, again, 409, fault.ECONFLICT)
	})
	t.Run("another_actor_is_403", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		q := e.ask(t, "job-1", sensitive)
		e.answer(t, q.ID, hitl.Response{Value: "s3cret"})
		requireError(t, e.call(t, "POST", "/api/questions/"+q.ID+"/receive", "", wire.UserHeader, "mallory"), 403, fault.EFORBIDDEN)
	})
	t.Run("unknown_id_is_404", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		requireError(t, e.call(t, "POST", "/api/questions/q_nope/receive", ""), 404, fault.ENOTFOUND)
	})
}
