package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hitlbot/hitl/api/wire"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
)

// FuzzServer sends arbitrary requests and checks that none makes the
// server fail (a 500 would be a recovered panic or an unmapped error) and
// that every error body is hitl's JSON.
func FuzzServer(f *testing.F) {
	for _, s := range [][3]string{
		{"POST", "/api/jobs/job-1/questions", askBody},
		{"POST", "/api/jobs/job-1/questions", `{"question":"x","options":[{"value":{}}],"responseType":"choice"}`},
		{"POST", "/api/jobs/job-1/questions", `{"question":"x","defaultResponse":{"value":[1]},"type":"non_blocking"}`},
		{"POST", "/api/jobs/job-1/questions", `{"question":"x","timeoutMinutes":1e309}`},
		{"POST", "/api/questions/Q/answer", `{"response":{"type":"choice","value":"prod"}}`},
		{"POST", "/api/questions/Q/answer", `{"response":{"value":1.5e300}}`},
		{"POST", "/api/questions/Q/cancel", `{"reason":"x"}`},
		{"GET", "/api/questions/Q?wait=1ns", ``},
		{"GET", "/api/questions/pending?type=approval&jobId=a", ``},
		{"GET", "/api/jobs/job-1", ``},
		{"GET", "/api//jobs/../questions", ``},
		{"POST", "/api/questions/Q/receive", ``},
		{"PATCH", "/api/questions/Q", `{}`},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, method, path, body string) {
		if method == "CONNECT" || !strings.HasPrefix(path, "/") || path == "/api/events" || strings.HasPrefix(path, "/api/events?") {
			return // the stream never ends on its own
		}
		svc := service.NewService(memstore.New(), service.ServiceConfig{Notifier: notify.New()})
		q, _, err := svc.Questions.Create(principaltest.As(context.Background(), "local"), "job-1", blockingQ)
		if err != nil {
			t.Fatal(err)
		}
		path = strings.ReplaceAll(path, "/Q", "/"+q.ID)
		req, err := http.NewRequest(method, "http://127.0.0.1"+path, strings.NewReader(body))
		if err != nil || req.URL.Path == "/api/events" {
			return
		}
		req.Header.Set("Content-Type", "application/json")
		srv := NewServer(servicesOf(svc), ServerConfig{Logger: discard, MaxWait: 1})
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s %q: %d %s", method, path, body, rec.Code, rec.Body)
		}
		if rec.Code >= 400 {
			var e wire.ErrorResponse
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Code == "" || e.Message == "" {
				t.Fatalf("%s %s: error body %q", method, path, rec.Body)
			}
		}
	})
}
