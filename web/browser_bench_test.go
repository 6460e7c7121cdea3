package web_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
)

// settledObserver records, in the page, when each question's card is
// marked settled (window.__settled[id], wall-clock milliseconds): a
// MutationObserver runs as the page's script changes the card, so the
// time is the DOM's, not the poll's.
const settledObserver = `(function(){
  window.__settled = {};
  new MutationObserver(function (ms) {
    ms.forEach(function (m) {
      var c = m.target;
      if (c.classList && c.classList.contains("settled") && c.id && !window.__settled[c.id.slice(2)]) {
        window.__settled[c.id.slice(2)] = performance.timeOrigin + performance.now();
      }
    });
  }).observe(document.body, {attributes: true, attributeFilter: ["class"], subtree: true});
  return true;
})()`

// openStreams opens n more pages' event streams, each its own sign-in
// and principal, read to the end by a goroutine each.
func openStreams(b *testing.B, l *live, n int) {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	tr := &http.Transport{MaxIdleConnsPerHost: n + 1}
	b.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr}
	for i := range n {
		secret, _, err := l.svc.SignIns.SignIn(ctx, auth.TokenPrincipal(fmt.Sprintf("person%d", i), []auth.Scope{auth.ScopeAnswer}, ""), time.Hour)
		if err != nil {
			b.Fatal(err)
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, l.srv.URL+"/events", nil)
		req.AddCookie(&http.Cookie{Name: "hitl_session", Value: secret})
		res, err := hc.Do(req)
		if err != nil || res.StatusCode != http.StatusOK {
			b.Fatalf("open stream %d: %v", i, err)
		}
		go func() {
			defer res.Body.Close()
			sc := bufio.NewScanner(res.Body)
			for sc.Scan() {
			}
		}()
	}
}

// BenchmarkBrowserPageUpdate measures the live update in the rendered
// page: from an answer given through the API (another edge, over HTTP)
// until the question's card in an inbox open in headless Chromium is
// marked settled (its forms taken off, "answered by … at …"), as the
// page's DOM records it; with that page alone and with 199 other pages'
// event streams open (other sign-ins, HTTP clients). p50 and p90.
func BenchmarkBrowserPageUpdate(b *testing.B) {
	for _, pages := range []int{1, 200} {
		b.Run(fmt.Sprintf("pages=%d", pages), func(b *testing.B) {
			tab := browse(b)
			l := newLive(b)
			ctx := tab(b)
			signIn(b, ctx, l.srv.URL, "alice-token-0123456789")
			openStreams(b, l, pages-1)
			root := l.client("root-token-0123456789a")
			var ds durations
			var waiting []*hitl.Question
			for i := 0; i < b.N; i++ {
				if len(waiting) == 0 {
					run := fmt.Sprintf("latency-%d", i)
					for range 40 {
						q, _, err := l.svc.Questions.Create(as(agentP), run, hitl.NewQuestion{Question: "Ship it?", Type: hitl.Approval})
						if err != nil {
							b.Fatal(err)
						}
						waiting = append(waiting, q)
					}
					var ok bool
					if err := chromedp.Run(ctx, chromedp.Navigate(l.srv.URL+"/?run="+run), chromedp.WaitVisible("#q-"+waiting[len(waiting)-1].ID, chromedp.ByQuery),
						streamOpen(), chromedp.Evaluate(settledObserver, &ok)); err != nil {
						b.Fatal(err)
					}
				}
				q := waiting[0]
				waiting = waiting[1:]
				start := time.Now()
				if _, err := root.Answer(context.Background(), q.ID, hitl.Response{Value: "approve"}); err != nil {
					b.Fatal(err)
				}
				var at float64
				if err := chromedp.Run(ctx, chromedp.Poll(fmt.Sprintf(`window.__settled[%q]`, q.ID), &at, chromedp.WithPollingInterval(2*time.Millisecond))); err != nil {
					b.Fatalf("the card of %s was not settled: %v", q.ID, err)
				}
				ds = append(ds, time.Duration(int64(at*1e6)-start.UnixNano()))
			}
			b.ReportMetric(ds.p50(), "dom-p50-µs")
			b.ReportMetric(ds.p90(), "dom-p90-µs")
		})
	}
}
