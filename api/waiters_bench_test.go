package api

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/service"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
)

// waitersEnv tells a re-executed test binary to act as the waiters of
// BenchmarkLongPollWaiters, against the server at its value.
const waitersEnv = "HITL_AGENT_WAITERS_BASE"

const benchWaiters = 10000

// BenchmarkLongPollWaiters parks 10,000 long polls (GET ?wait=5m) on one
// server on loopback, measures the server's heap and goroutine stacks per
// parked waiter, then answers every question and checks that every waiter
// returns with its answer.
//
// The waiters run in a child process (this test binary re-executed): each
// holds a TCP connection, and 10,000 connections with both ends in one
// process need 20,000 descriptors, the hard limit here. The split also
// keeps the client's memory out of the server's figure; the child reports
// its own per-waiter cost as client-B/waiter.
func BenchmarkLongPollWaiters(b *testing.B) {
	for range b.N {
		runWaiters(b, benchWaiters)
	}
}

func runWaiters(b *testing.B, n int) {
	svc := service.NewService(memstore.New(), service.ServiceConfig{Notifier: notify.New()})
	w := newWatched(svc.Questions)
	base := benchServer(b, NewServer(over(w, svc), ServerConfig{Logger: discard}))
	ctx := principaltest.As(context.Background(), "api:bench")
	ids := make([]string, n)
	for i := range ids {
		q, _, err := svc.Questions.Create(ctx, fmt.Sprintf("job-%d", i), textQ)
		if err != nil {
			b.Fatal(err)
		}
		ids[i] = q.ID
	}

	before := memNow()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLongPollWaitersHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), waitersEnv+"="+base)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if _, err := io.WriteString(stdin, strings.Join(ids, "\n")+"\n\n"); err != nil {
		b.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	start := time.Now()
	w.untilWithin(b, 2*time.Minute, "every waiter is parked", func(in, _, _ int) bool { return in == n })
	parkedIn := time.Since(start)
	after := memNow()

	if _, err := io.WriteString(stdin, "measure\n"); err != nil {
		b.Fatal(err)
	}
	clientLine := readLine(b, lines, "client ")

	start = time.Now()
	answerAll(b, svc.Questions, ids)
	doneLine := readLine(b, lines, "done ")
	wokenIn := time.Since(start)
	var returned, answered int
	if _, err := fmt.Sscanf(doneLine, "done %d %d", &returned, &answered); err != nil || returned != n || answered != n {
		b.Fatalf("waiters: %q, want %d returned and answered", doneLine, n)
	}
	_ = stdin.Close()
	if err := cmd.Wait(); err != nil {
		b.Fatalf("waiters process: %v", err)
	}

	heap := float64(int64(after.heap)-int64(before.heap)) / float64(n)
	stack := float64(int64(after.stack)-int64(before.stack)) / float64(n)
	var clientHeap, clientStack float64
	_, _ = fmt.Sscanf(clientLine, "client %g %g", &clientHeap, &clientStack)
	b.ReportMetric(heap+stack, "server-B/waiter")
	b.ReportMetric(heap, "server-heap-B/waiter")
	b.ReportMetric(stack, "server-stack-B/waiter")
	b.ReportMetric(float64(after.goroutines-before.goroutines)/float64(n), "server-goroutines/waiter")
	b.ReportMetric(clientHeap+clientStack, "client-B/waiter")
	b.ReportMetric(parkedIn.Seconds(), "park-all-s")
	b.ReportMetric(wokenIn.Seconds(), "answer-and-wake-all-s")
}

type memSample struct {
	heap, stack uint64
	goroutines  int
}

// memNow returns the live heap and goroutine stacks after a full GC.
func memNow() memSample {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return memSample{heap: m.HeapAlloc, stack: m.StackInuse, goroutines: runtime.NumGoroutine()}
}

func readLine(b *testing.B, lines *bufio.Scanner, prefix string) string {
	b.Helper()
	for lines.Scan() {
		if l := lines.Text(); strings.HasPrefix(l, prefix) {
			return l
		}
	}
	b.Fatalf("waiters process ended before %q: %v", prefix, lines.Err())
	return ""
}

// answerAll answers every question from a few goroutines.
func answerAll(b *testing.B, svc hitl.QuestionService, ids []string) {
	ctx := principaltest.As(context.Background(), "slack:U024BE7LH")
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := g; i < len(ids); i += 8 {
				if _, err := svc.Answer(ctx, ids[i], hitl.Response{Value: "Friday"}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}

// TestLongPollWaitersHelper is the waiters process of
// BenchmarkLongPollWaiters; it does nothing in a normal test run. It reads
// question ids from stdin until a blank line, long-polls each on its own
// connection, reports its memory per waiter when told "measure", and
// reports how many waiters returned with an answer.
func TestLongPollWaitersHelper(t *testing.T) {
	base := os.Getenv(waitersEnv)
	if base == "" {
		t.Skip("the waiters process of BenchmarkLongPollWaiters")
	}
	in := bufio.NewScanner(os.Stdin)
	var ids []string
	for in.Scan() && in.Text() != "" {
		ids = append(ids, in.Text())
	}
	tr := &http.Transport{MaxIdleConnsPerHost: len(ids), DisableCompression: true}
	c := client.NewClient(base, "", client.WithHTTPClient(&http.Client{Transport: tr}), client.WithPollWait(5*time.Minute))
	before := memNow()

	// At most 256 connections are being set up at once, so the listen
	// backlog never overflows.
	dialing := make(chan struct{}, 256)
	answered := make(chan bool, len(ids))
	for _, id := range ids {
		dialing <- struct{}{}
		go func() {
			var once sync.Once
			release := func() { once.Do(func() { <-dialing }) }
			ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
				WroteRequest: func(httptrace.WroteRequestInfo) { release() },
			})
			q, err := c.Wait(ctx, id)
			release()
			if err != nil {
				fmt.Fprintln(os.Stderr, "waiter:", err)
			}
			answered <- err == nil && q.Status == hitl.StatusAnswered
		}()
	}
	if !in.Scan() || in.Text() != "measure" {
		t.Fatalf("expected measure, got %q", in.Text())
	}
	after := memNow()
	n := float64(len(ids))
	fmt.Printf("client %g %g\n", float64(int64(after.heap)-int64(before.heap))/n, float64(int64(after.stack)-int64(before.stack))/n)
	ok := 0
	for range ids {
		if <-answered {
			ok++
		}
	}
	fmt.Printf("done %d %d\n", len(ids), ok)
}
