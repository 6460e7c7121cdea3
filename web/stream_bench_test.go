package web_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/store"
	"github.com/hitlbot/hitl/web"
)

// BenchmarkPageUpdate measures the time from an answer given on another
// edge (the service, as the API or Slack call it) to every open page's
// event stream carrying it, with 1 and 200 pages open (each its own
// sign-in, over HTTP on loopback): the p50 of the last page's delay.
func BenchmarkPageUpdate(b *testing.B) {
	for _, pages := range []int{1, 200} {
		b.Run(fmt.Sprintf("pages=%d", pages), func(b *testing.B) {
			db, err := store.Open(filepath.Join(b.TempDir(), "hitl.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			svc := service.NewService(db, service.ServiceConfig{Notifier: notify.New()})
			srv := httptest.NewServer(web.New(web.Config{Services: servicesOf(svc), Heartbeat: time.Hour}))
			defer srv.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			tr := &http.Transport{MaxIdleConnsPerHost: pages}
			defer tr.CloseIdleConnections()
			hc := &http.Client{Transport: tr}
			got := make(chan string, pages*4)
			for i := range pages {
				secret, _, err := svc.SignIns.SignIn(ctx, auth.TokenPrincipal(fmt.Sprintf("person%d", i), []auth.Scope{auth.ScopeAnswer}, ""), time.Hour)
				if err != nil {
					b.Fatal(err)
				}
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/events", nil)
				req.AddCookie(&http.Cookie{Name: "hitl_session", Value: secret})
				res, err := hc.Do(req)
				if err != nil || res.StatusCode != http.StatusOK {
					b.Fatalf("open stream %d: %v", i, err)
				}
				go func() {
					defer res.Body.Close()
					sc := bufio.NewScanner(res.Body)
					for sc.Scan() {
						if line := sc.Text(); strings.HasPrefix(line, "data: ") && strings.Contains(line, `"type":"question_answered"`) {
							got <- line
						}
					}
				}()
			}
			asker, person := as(agentP), as(rootP)
			var ds durations
			for b.Loop() {
				q, _, err := svc.Questions.Create(asker, "bench", hitl.NewQuestion{Question: "Go?", Type: hitl.Approval})
				if err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				if _, err := svc.Questions.Answer(person, q.ID, hitl.Response{Value: "approve"}); err != nil {
					b.Fatal(err)
				}
				for range pages {
					select {
					case line := <-got:
						if !strings.Contains(line, q.ID) {
							b.Fatalf("a stream carried another answer: %s", line)
						}
					case <-time.After(10 * time.Second):
						b.Fatal("a page was not updated within 10 s")
					}
				}
				ds = append(ds, time.Since(start))
			}
			b.ReportMetric(ds.p50(), "last-page-p50-µs")
		})
	}
}
