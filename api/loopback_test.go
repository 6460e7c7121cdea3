package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hitlbot/hitl/api/wire"
	"github.com/hitlbot/hitl/fault"
	"github.com/stretchr/testify/require"
)

func TestLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST:8750": true, "127.0.0.1": true, "127.0.0.1:8750": true,
		"127.1.2.3:80": true, "[::1]": true, "[::1]:8750": true,
		"evil.example": false, "evil.example:8750": false, "localhost.evil.example": false,
		"app.localhost": false, "10.0.0.1:8750": false, "[::2]:8750": false, "0.0.0.0:8750": false, "": false,
	} {
		require.Equal(t, want, loopbackHost(host), host)
	}
}

// direct sends one request straight to srv, as a browser or a program on
// the machine would.
func direct(srv http.Handler, method, host, body string, headers ...string) reply {
	req := httptest.NewRequest(method, "http://"+host+"/api/jobs/job-1/questions", strings.NewReader(body))
	if method == http.MethodGet {
		req = httptest.NewRequest(method, "http://"+host+"/api/questions/pending", nil)
	}
	setHeaders(req, headers...)
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	out := reply{status: rec.Code, header: rec.Header(), raw: rec.Body.String()}
	_ = json.Unmarshal(rec.Body.Bytes(), &out.body)
	return out
}

func TestTokenlessRefusesBrowsers(t *testing.T) {
	e := newEnv(t, ServerConfig{})
	srv := e.server
	const ask = `{"question":"ok?"}`
	const jsonType = "application/json"
	t.Run("foreign_host_is_403_dns_rebinding", func(t *testing.T) {
		r := direct(srv, "GET", "evil.example", "")
		requireError(t, r, 403, fault.EFORBIDDEN)
		require.Contains(t, r.body["message"], "127.0.0.1")
		requireError(t, direct(srv, "POST", "evil.example:8750", ask, "Content-Type", jsonType), 403, fault.EFORBIDDEN)
	})
	t.Run("foreign_origin_is_403", func(t *testing.T) {
		r := direct(srv, "POST", "127.0.0.1:8750", ask, "Content-Type", jsonType, "Origin", "http://evil.example")
		requireError(t, r, 403, fault.EFORBIDDEN)
		require.Contains(t, r.body["message"], "web pages")
		requireError(t, direct(srv, "GET", "127.0.0.1:8750", "", "Origin", "null"), 403, fault.EFORBIDDEN)
		requireError(t, direct(srv, "GET", "127.0.0.1:8750", "", "Origin", "http://127.0.0.1:9999"), 403, fault.EFORBIDDEN)
		requireError(t, direct(srv, "GET", "127.0.0.1:8750", "", "Origin", "https://127.0.0.1:8750"), 403, fault.EFORBIDDEN)
	})
	t.Run("own_origin_is_allowed", func(t *testing.T) {
		r := direct(srv, "POST", "localhost:8750", ask, "Content-Type", jsonType, "Origin", "http://localhost:8750")
		require.Equal(t, http.StatusCreated, r.status, r.raw)
	})
	t.Run("text_plain_body_is_415", func(t *testing.T) {
		r := direct(srv, "POST", "127.0.0.1:8750", ask, "Content-Type", "text/plain")
		requireError(t, r, 415, wire.CodeUnsupportedMediaType)
		require.Contains(t, r.body["message"], "Content-Type: application/json")
	})
	t.Run("form_and_missing_types_are_415", func(t *testing.T) {
		requireError(t, direct(srv, "POST", "127.0.0.1", ask, "Content-Type", "application/x-www-form-urlencoded"), 415, wire.CodeUnsupportedMediaType)
		requireError(t, direct(srv, "POST", "127.0.0.1", ask, "Content-Type", "multipart/form-data; boundary=x"), 415, wire.CodeUnsupportedMediaType)
		requireError(t, direct(srv, "POST", "127.0.0.1", ask), 415, wire.CodeUnsupportedMediaType)
		requireError(t, direct(srv, "POST", "127.0.0.1", ask, "Content-Type", "application/json-seq"), 415, wire.CodeUnsupportedMediaType)
	})
	t.Run("chunked_body_without_json_type_is_415", func(t *testing.T) {
		req := httptest.NewRequest("POST", "http://127.0.0.1/api/jobs/job-1/questions", strings.NewReader(ask))
		req.ContentLength, req.TransferEncoding = -1, []string{"chunked"}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		require.Equal(t, http.StatusUnsupportedMediaType, rec.Code, rec.Body.String())
	})
	t.Run("json_with_charset_is_accepted", func(t *testing.T) {
		r := direct(srv, "POST", "[::1]:8750", ask, "Content-Type", "Application/JSON; charset=utf-8")
		require.Equal(t, http.StatusCreated, r.status, r.raw)
	})
	t.Run("bodyless_state_changes_without_json_type_are_415_and_change_nothing", func(t *testing.T) {
		q := e.ask(t, "job-1", textQ)
		for _, method := range []string{"POST", "PUT", "PATCH", "DELETE"} {
			for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded"} {
				r := e.call(t, method, "/api/questions/"+q.ID+"/cancel", "", "Content-Type", ct)
				requireError(t, r, 415, wire.CodeUnsupportedMediaType)
				require.Contains(t, r.body["message"], "body or not")
			}
		}
		got, err := e.client.Question(context.Background(), q.ID)
		require.NoError(t, err)
		require.True(t, got.Pending(), "a refused request changes nothing")
		r := e.call(t, "POST", "/api/questions/"+q.ID+"/cancel", "", "Origin", "http://evil.example")
		requireError(t, r, 403, fault.EFORBIDDEN)
	})
	t.Run("bodyless_post_with_json_type_is_served", func(t *testing.T) {
		q := e.ask(t, "job-1", textQ)
		r := e.call(t, "POST", "/api/questions/"+q.ID+"/cancel", "")
		require.Equal(t, http.StatusOK, r.status, r.raw)
	})
	t.Run("healthz_and_the_client_still_work", func(t *testing.T) {
		r := e.call(t, "GET", "/healthz", "")
		require.Equal(t, http.StatusOK, r.status, r.raw)
		ctx := context.Background()
		q, created, err := e.client.Create(ctx, "job-2", textQ)
		require.NoError(t, err)
		require.True(t, created)
		_, err = e.client.Cancel(ctx, q.ID, "done")
		require.NoError(t, err)
		_, err = e.client.Health(ctx)
		require.NoError(t, err)
	})
	t.Run("healthz_on_a_foreign_host_is_403", func(t *testing.T) {
		requireError(t, e.call(t, "GET", "/healthz", "", "Host", "evil.example"), 403, fault.EFORBIDDEN)
	})
}

func TestTokensServeAnyHostAndOrigin(t *testing.T) {
	e := newEnv(t, ServerConfig{Tokens: tokens("s3cret", "ci")})
	r := direct(e.server, "POST", "hitl.example.com", `{"question":"ok?"}`,
		"Authorization", "Bearer s3cret", "Origin", "https://dash.example.com", "Content-Type", "text/plain")
	require.Equal(t, http.StatusCreated, r.status, r.raw)
}
