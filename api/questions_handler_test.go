package api

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/stretchr/testify/require"
)

const askBody = `{"question":"Which database?","type":"blocking","responseType":"choice",
	"options":[{"label":"Production","value":"prod"},{"label":"Staging","value":"staging"}],
	"context":{"jobType":"migration","currentStep":"plan"},"timeoutMinutes":30}`

func TestCreateEndpoint(t *testing.T) {
	t.Run("creates_201_with_seed_fields", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		r := e.call(t, "POST", "/api/jobs/job-1/questions", askBody)
		require.Equal(t, http.StatusCreated, r.status, r.raw)
		require.NotEmpty(t, r.body["questionId"])
		require.Equal(t, "2025-03-01T12:30:00Z", r.body["timeoutAt"])
		require.Equal(t, "pending", r.body["status"])
		require.Equal(t, true, r.body["created"])
		require.NotContains(t, r.body, "defaultResponse")
		q := sub(t, r.body, "question")
		require.Equal(t, "job-1", q["jobId"])
		require.Equal(t, "local", q["asker"])
	})
	t.Run("same_idempotency_key_returns_200_with_current_status", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		body := `{"question":"Deploy?","responseType":"boolean","idempotencyKey":"k1"}`
		first := e.call(t, "POST", "/api/jobs/job-1/questions", body)
		require.Equal(t, http.StatusCreated, first.status, first.raw)
		e.answer(t, first.body["questionId"].(string), hitl.Response{Value: true})
		again := e.call(t, "POST", "/api/jobs/job-1/questions", body)
		require.Equal(t, http.StatusOK, again.status, again.raw)
		require.Equal(t, first.body["questionId"], again.body["questionId"])
		require.Equal(t, false, again.body["created"])
		require.Equal(t, "answered", again.body["status"])
	})
	t.Run("non_blocking_includes_default_and_null_timeout", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		r := e.call(t, "POST", "/api/jobs/job-1/questions",
			`{"question":"Verbose logs?","type":"non_blocking","responseType":"boolean","defaultResponse":{"type":"boolean","value":false}}`)
		require.Equal(t, http.StatusCreated, r.status, r.raw)
		require.Nil(t, r.body["timeoutAt"])
		require.Contains(t, r.body, "timeoutAt")
		require.Equal(t, map[string]any{"type": "boolean", "value": false}, r.body["defaultResponse"])
	})
	t.Run("job_id_with_slash_is_one_segment", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		r := e.call(t, "POST", "/api/jobs/team%2Frun-1/questions", `{"question":"ok?"}`)
		require.Equal(t, http.StatusCreated, r.status, r.raw)
		require.Equal(t, "team/run-1", sub(t, r.body, "question")["jobId"])
	})
	t.Run("wrong_content_type_is_tolerated_with_tokens", func(t *testing.T) {
		e := newEnv(t, ServerConfig{Tokens: tokens("s3cret", "ci")})
		r := e.call(t, "POST", "/api/jobs/job-1/questions", `{"question":"ok?"}`, "Content-Type", "text/plain", "Authorization", "Bearer s3cret")
		require.Equal(t, http.StatusCreated, r.status, r.raw)
	})
	for _, tc := range []struct {
		name, job, body, want string
		status                int
	}{
		{"bad_json_is_400", "job-1", `{"question":`, "truncated", 400},
		{"syntax_error_is_400", "job-1", `{"question" "x"}`, "not valid JSON", 400},
		{"unknown_field_is_400_naming_it", "job-1", `{"question":"x","priority":"high"}`, `"priority"`, 400},
		{"wrong_field_type_is_400_naming_it", "job-1", `{"question":42}`, `"question"`, 400},
		{"empty_body_is_400", "job-1", ``, "required", 400},
		{"array_body_is_400", "job-1", `[]`, "object", 400},
		{"trailing_data_is_400", "job-1", `{"question":"x"}{"question":"y"}`, "single", 400},
		{"missing_question_is_400", "job-1", `{"type":"blocking"}`, "question is required", 400},
		{"invalid_type_is_400", "job-1", `{"question":"x","type":"urgent"}`, "urgent", 400},
		{"invalid_response_type_is_400", "job-1", `{"question":"x","responseType":"number"}`, "number", 400},
		{"choice_without_options_is_400", "job-1", `{"question":"x","responseType":"choice"}`, "options", 400},
		{"bad_default_is_400", "job-1", `{"question":"x","responseType":"choice","options":[{"value":"a"}],"defaultResponse":{"value":"b"}}`, "defaultResponse", 400},
		{"negative_timeout_is_400", "job-1", `{"question":"x","timeoutMinutes":-1}`, "timeoutMinutes", 400},
		{"invalid_job_id_is_400", "-bad", `{"question":"x"}`, "job id", 400},
		{"too_large_is_413", "job-1", `{"question":"` + strings.Repeat("x", 2048) + `"}`, "larger", 413},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, ServerConfig{MaxBodyBytes: 1024})
			r := e.call(t, "POST", "/api/jobs/"+tc.job+"/questions", tc.body)
			code := fault.EINVALID
			if tc.status == 413 {
				code = fault.ETOOLARGE
			}
			requireError(t, r, tc.status, code)
			require.Contains(t, r.body["message"], tc.want)
		})
	}
}

func TestJobQuestions(t *testing.T) {
	t.Run("lists_the_jobs_questions_oldest_first", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		a := e.ask(t, "job-1", textQ)
		b := e.ask(t, "job-1", blockingQ)
		e.ask(t, "job-2", textQ)
		r := e.call(t, "GET", "/api/jobs/job-1/questions", "")
		require.Equal(t, http.StatusOK, r.status, r.raw)
		qs := r.body["questions"].([]any)
		require.Len(t, qs, 2)
		require.Equal(t, a.ID, qs[0].(map[string]any)["id"])
		require.Equal(t, b.ID, qs[1].(map[string]any)["id"])
	})
	t.Run("unknown_job_is_an_empty_list", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		r := e.call(t, "GET", "/api/jobs/nobody/questions", "")
		require.Equal(t, http.StatusOK, r.status, r.raw)
		require.Equal(t, []any{}, r.body["questions"])
	})
	t.Run("invalid_job_id_is_400", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		requireError(t, e.call(t, "GET", "/api/jobs/%20x/questions", ""), 400, fault.EINVALID)
	})
}

func TestRunState(t *testing.T) {
	t.Run("waiting_run_shows_its_pending_question", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		done := e.ask(t, "job-1", textQ)
		e.answer(t, done.ID, hitl.Response{Value: "Friday"})
		q := e.ask(t, "job-1", blockingQ)
		r := e.call(t, "GET", "/api/jobs/job-1", "")
		require.Equal(t, http.StatusOK, r.status, r.raw)
		require.Equal(t, "job-1", r.body["runId"])
		require.Equal(t, "waiting_for_input", r.body["phase"])
		require.Equal(t, q.ID, sub(t, r.body, "pendingQuestion")["questionId"])
		hist := r.body["interactionHistory"].([]any)
		require.Len(t, hist, 1)
		require.Equal(t, "Friday", hist[0].(map[string]any)["answer"])
	})
	t.Run("unknown_job_is_404", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		requireError(t, e.call(t, "GET", "/api/jobs/nobody", ""), 404, fault.ENOTFOUND)
	})
}

func TestPending(t *testing.T) {
	e := newEnv(t, ServerConfig{})
	a := e.ask(t, "job-1", textQ)
	b := e.ask(t, "job-2", hitl.NewQuestion{Question: "Delete 3 files?", Type: hitl.Approval})
	answered := e.ask(t, "job-1", textQ)
	e.answer(t, answered.ID, hitl.Response{Value: "x"})
	ids := func(r reply) []string {
		var out []string
		for _, q := range r.body["questions"].([]any) {
			out = append(out, q.(map[string]any)["id"].(string))
		}
		return out
	}
	t.Run("lists_only_pending", func(t *testing.T) {
		r := e.call(t, "GET", "/api/questions/pending?workspaceId=ws-1", "")
		require.Equal(t, http.StatusOK, r.status, r.raw)
		require.Equal(t, []string{a.ID, b.ID}, ids(r))
	})
	t.Run("filters_by_type", func(t *testing.T) {
		require.Equal(t, []string{b.ID}, ids(e.call(t, "GET", "/api/questions/pending?type=approval", "")))
	})
	t.Run("filters_by_job", func(t *testing.T) {
		require.Equal(t, []string{a.ID}, ids(e.call(t, "GET", "/api/questions/pending?jobId=job-1", "")))
	})
	t.Run("bad_type_is_400", func(t *testing.T) {
		requireError(t, e.call(t, "GET", "/api/questions/pending?type=urgent", ""), 400, fault.EINVALID)
	})
	t.Run("bad_job_id_is_400", func(t *testing.T) {
		requireError(t, e.call(t, "GET", "/api/questions/pending?jobId=%20", ""), 400, fault.EINVALID)
	})
}

func TestQuestions(t *testing.T) {
	e := newEnv(t, ServerConfig{})
	a := e.ask(t, "job-1", textQ)
	e.ask(t, "job-1", textQ)
	e.answer(t, a.ID, hitl.Response{Value: "x"})
	t.Run("filters_by_status", func(t *testing.T) {
		r := e.call(t, "GET", "/api/questions?status=answered", "")
		require.Equal(t, http.StatusOK, r.status, r.raw)
		require.Len(t, r.body["questions"], 1)
	})
	t.Run("limit_bounds_the_list", func(t *testing.T) {
		require.Len(t, e.call(t, "GET", "/api/questions?limit=1", "").body["questions"], 1)
	})
	for _, q := range []string{"status=done", "limit=0", "limit=x", "type=x"} {
		t.Run("bad_"+strings.SplitN(q, "=", 2)[0]+"_is_400", func(t *testing.T) {
			requireError(t, e.call(t, "GET", "/api/questions?"+q, ""), 400, fault.EINVALID)
		})
	}
	// Every list bounds ?limit= alike: 1 to hitl.MaxPageSize.
	for _, path := range []string{"/api/questions", "/api/runs"} {
		for _, l := range []string{"0", "x", strconv.Itoa(hitl.MaxPageSize + 1)} {
			t.Run(strings.TrimPrefix(path, "/api/")+"_limit_"+l+"_is_400", func(t *testing.T) {
				r := e.call(t, "GET", path+"?limit="+l, "")
				requireError(t, r, 400, fault.EINVALID)
				require.Contains(t, r.body["message"], "limit must be a whole number from 1 to "+strconv.Itoa(hitl.MaxPageSize))
			})
		}
		t.Run(strings.TrimPrefix(path, "/api/")+"_limit_at_most_is_200", func(t *testing.T) {
			r := e.call(t, "GET", path+"?limit="+strconv.Itoa(hitl.MaxPageSize), "")
			require.Equal(t, http.StatusOK, r.status, r.raw)
		})
	}
}
