package api

import (
	"bufio"
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitlbot/hitl/internal/principaltest"
)

const benchStreams = 1000

// BenchmarkEventFanOut opens 1,000 SSE streams over loopback HTTP on one
// server (bbolt store) and measures, per question asked, the time from
// the commit of its event (announced to the waiters) until the last of the 1,000
// streams has read it.
func BenchmarkEventFanOut(b *testing.B) {
	e := newBoltEnv(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: benchStreams, DisableCompression: true}}

	// arrived[seq] counts the streams that read event seq; the one that
	// completes it stamps the time.
	const maxEvents = 1 << 16
	var arrived [maxEvents]atomic.Int32
	last := make(chan time.Time, 1)
	var opened sync.WaitGroup
	dialing := make(chan struct{}, 64) // at most 64 streams being set up at once
	failed := make(chan error, benchStreams)
	for range benchStreams {
		dialing <- struct{}{}
		opened.Add(1)
		go func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.base+"/api/events", nil)
			resp, err := hc.Do(req)
			<-dialing
			opened.Done()
			if err != nil {
				failed <- err
				return
			}
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				id, ok := strings.CutPrefix(sc.Text(), "id: ")
				if !ok {
					continue
				}
				seq, err := strconv.Atoi(id)
				if err != nil || seq >= maxEvents {
					failed <- err
					return
				}
				if arrived[seq].Add(1) == benchStreams {
					last <- time.Now()
				}
			}
		}()
	}
	opened.Wait()
	select {
	case err := <-failed:
		b.Fatal(err)
	default:
	}

	asker := principaltest.As(context.Background(), "api:bench")
	var l latencies
	for b.Loop() {
		// The event exists once its commit is announced (Changed closes).
		announced := make(chan time.Time, 1)
		changed := e.svc.Log.Changed()
		go func() { <-changed; announced <- time.Now() }()
		if _, _, err := e.svc.Questions.Create(asker, "job-fanout", textQ); err != nil {
			b.Fatal(err)
		}
		select {
		case at := <-last:
			l = append(l, at.Sub(<-announced))
		case err := <-failed:
			b.Fatal(err)
		case <-time.After(time.Minute):
			b.Fatal("an event did not reach every stream within a minute")
		}
		if len(l) >= maxEvents-1 {
			b.Fatal("too many events for the counters: use a smaller -benchtime")
		}
	}
	b.ReportMetric(l.p(0.5), "last-stream-p50-µs")
	b.ReportMetric(l.p(0.99), "last-stream-p99-µs")
	b.ReportMetric(benchStreams, "streams")
}
