package api

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/api/wire"
	"github.com/hitlbot/hitl/fault"
	"github.com/stretchr/testify/require"
)

func TestRoutes(t *testing.T) {
	e := newEnv(t, ServerConfig{})
	t.Run("healthz_is_200", func(t *testing.T) {
		r := e.call(t, "GET", "/healthz", "")
		require.Equal(t, http.StatusOK, r.status)
		require.Equal(t, true, r.body["ok"])
	})
	t.Run("unknown_route_is_404_json", func(t *testing.T) {
		requireError(t, e.call(t, "GET", "/api/nothing", ""), 404, fault.ENOTFOUND)
		requireError(t, e.call(t, "GET", "/", ""), 404, fault.ENOTFOUND)
	})
	t.Run("wrong_method_is_405_json_with_allow", func(t *testing.T) {
		r := e.call(t, "DELETE", "/api/questions/q_1", "")
		requireError(t, r, 405, wire.CodeMethodNotAllowed)
		require.Contains(t, r.header.Get("Allow"), "GET")
		requireError(t, e.call(t, "GET", "/api/questions/q_1/answer", ""), 405, wire.CodeMethodNotAllowed)
	})
}

func TestAuth(t *testing.T) {
	e := newEnv(t, ServerConfig{Tokens: tokens("tok-ci", "ci-agent", "tok-other", "other")})
	t.Run("missing_token_is_401", func(t *testing.T) {
		r := e.call(t, "GET", "/api/questions/pending", "")
		requireError(t, r, 401, fault.EUNAUTHORIZED)
		require.Contains(t, r.header.Get("WWW-Authenticate"), "Bearer")
	})
	t.Run("wrong_token_is_401", func(t *testing.T) {
		requireError(t, e.call(t, "GET", "/api/questions/pending", "", "Authorization", "Bearer tok-nope"), 401, fault.EUNAUTHORIZED)
	})
	t.Run("other_scheme_is_401", func(t *testing.T) {
		requireError(t, e.call(t, "GET", "/api/questions/pending", "", "Authorization", "Basic dG9rLWNpOg=="), 401, fault.EUNAUTHORIZED)
	})
	t.Run("every_api_route_needs_the_token", func(t *testing.T) {
		for _, rt := range [][2]string{
			{"POST", "/api/jobs/j/questions"}, {"GET", "/api/jobs/j/questions"}, {"GET", "/api/jobs/j"},
			{"POST", "/api/questions/q/answer"}, {"POST", "/api/questions/q/cancel"}, {"GET", "/api/questions/q"},
			{"POST", "/api/questions/q/receive"}, {"GET", "/api/events"}, {"GET", "/api/questions"}, {"GET", "/api/nothing"},
		} {
			requireError(t, e.call(t, rt[0], rt[1], `{}`), 401, fault.EUNAUTHORIZED)
		}
	})
	t.Run("right_token_acts_as_its_agent", func(t *testing.T) {
		r := e.call(t, "POST", "/api/jobs/job-1/questions", `{"question":"ok?"}`, "Authorization", "Bearer tok-ci", wire.UserHeader, "ignored")
		require.Equal(t, http.StatusCreated, r.status, r.raw)
		require.Equal(t, "api:ci-agent", sub(t, r.body, "question")["asker"])
	})
	t.Run("healthz_needs_no_token", func(t *testing.T) {
		require.Equal(t, http.StatusOK, e.call(t, "GET", "/healthz", "").status)
	})
	t.Run("no_tokens_and_a_bad_user_header_is_400", func(t *testing.T) {
		open := newEnv(t, ServerConfig{})
		requireError(t, open.call(t, "GET", "/api/questions", "", wire.UserHeader, "a b"), 400, fault.EINVALID)
	})
}

// syncBuffer is a bytes.Buffer safe for a handler and a test to share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// brokenService fails in ways a real service should not.
type brokenService struct {
	hitl.QuestionService
	panicking bool
}

func (b brokenService) Question(context.Context, string) (*hitl.Question, error) {
	if b.panicking {
		panic("boom")
	}
	return nil, errors.New("disk on fire")
}

func TestInternalErrors(t *testing.T) {
	for _, tc := range []struct {
		name      string
		panicking bool
		logged    string
	}{
		{"plain_error_is_500_and_logged", false, "disk on fire"},
		{"panic_is_500_and_logged", true, "boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs syncBuffer
			e := newEnv(t, ServerConfig{})
			srv := NewServer(over(brokenService{QuestionService: e.svc.Questions, panicking: tc.panicking}, e.svc),
				ServerConfig{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			hs := httptest.NewServer(srv)
			defer hs.Close()
			r := callURL(t, "GET", hs.URL+"/api/questions/q_1", "")
			requireError(t, r, 500, fault.EINTERNAL)
			require.Equal(t, "internal error", r.body["message"])
			require.Contains(t, logs.String(), tc.logged)
		})
	}
}
