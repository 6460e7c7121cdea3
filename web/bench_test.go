package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/internal/storetest"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/store"
	"github.com/hitlbot/hitl/web"
)

// inboxFixture is the web inbox over a bbolt store holding size pending
// questions, with a signed-in sign-in of p: it returns a request of the
// inbox page for that sign-in.
func inboxFixture(b *testing.B, size int, p auth.Principal) (http.Handler, func() *http.Request) {
	b.Helper()
	db, err := store.Open(filepath.Join(b.TempDir(), "hitl.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	svc := service.NewService(db, service.ServiceConfig{Notifier: notify.New()})
	ctx := as(agentP)
	storetest.Parallel(b, size, func(i int) error {
		minutes := float64(10 + (i*7919)%1400) // deadlines scattered over creation order
		_, _, err := svc.Questions.Create(ctx, fmt.Sprintf("run-%d", i%500), hitl.NewQuestion{Question: fmt.Sprintf("Deploy build %d to production?", i),
			Type: hitl.Approval, Context: &hitl.QuestionContext{Agent: "release-bot", ProjectName: "shop"}, TimeoutMinutes: &minutes})
		return err
	})
	h := web.New(web.Config{Services: servicesOf(svc)})
	secret, _, err := svc.SignIns.SignIn(context.Background(), p, time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	return h, func() *http.Request {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.AddCookie(&http.Cookie{Name: "hitl_session", Value: secret})
		return r
	}
}

type durations []time.Duration

func (d durations) p50() float64 { return d.quantile(0.5) }

func (d durations) p90() float64 { return d.quantile(0.9) }

// quantile is the q-quantile of d in microseconds.
func (d durations) quantile(q float64) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	return float64(s[int(q*float64(len(s)-1)+0.5)].Microseconds())
}

// BenchmarkInboxPage measures the inbox page (its first page: the 50
// soonest deadlines of the whole queue) on a bbolt store holding 100 or
// 100,000 pending approvals whose deadlines are scattered over their
// creation order, for a person
// with a Slack user (the queue merges their indexes) and for a token
// without one (the unassigned index): the page costs the page, not the
// store. The ratio alternates both sizes in one loop.
func BenchmarkInboxPage(b *testing.B) {
	for _, who := range []struct {
		name string
		p    auth.Principal
	}{{"slack-user", aliceP}, {"token", rootP}} {
		b.Run(who.name, func(b *testing.B) {
			small, smallReq := inboxFixture(b, 100, who.p)
			big, bigReq := inboxFixture(b, 100_000, who.p)
			runtime.GC()
			page := func(h http.Handler, req func() *http.Request) (time.Duration, int) {
				w := httptest.NewRecorder()
				start := time.Now()
				h.ServeHTTP(w, req())
				d := time.Since(start)
				if w.Code != http.StatusOK || strings.Count(w.Body.String(), `class="q"`) != web.PageSize {
					b.Fatalf("inbox: %d, %d cards", w.Code, strings.Count(w.Body.String(), `class="q"`))
				}
				return d, w.Body.Len()
			}
			var ds, dl durations
			var bytes int
			for b.Loop() {
				d, _ := page(small, smallReq)
				ds = append(ds, d)
				d, bytes = page(big, bigReq)
				dl = append(dl, d)
			}
			b.ReportMetric(ds.p50(), "pending=100-p50-µs")
			b.ReportMetric(dl.p50(), "pending=100000-p50-µs")
			b.ReportMetric(dl.p50()/ds.p50(), "p50-100000÷100")
			b.ReportMetric(float64(bytes), "bytes/page")
		})
	}
}
