package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/client"
	"github.com/stretchr/testify/require"
)

// gracefulChildEnv makes TestGracefulServeChild run `hitl serve`; without
// it the child test skips.
const gracefulChildEnv = "HITL_GRACEFUL_CHILD"

// TestGracefulServeChild is `hitl serve` exactly as the process runs it
// (process: SIGTERM and SIGINT end its context), in a child process that
// the graceful restart tests stop with a signal. It passes when the
// command exits 0.
func TestGracefulServeChild(t *testing.T) {
	if os.Getenv(gracefulChildEnv) != "1" {
		t.Skip("run by the graceful restart tests")
	}
	if code := process([]string{"serve", "--quiet"}); code != 0 {
		t.Fatalf("hitl serve exited %d", code)
	}
}

// startServeChild starts `hitl serve` in a child process on the database db
// (a file or a postgres:// URL), listening on listen (127.0.0.1:0 for
// any port), with the seal key file key (PostgreSQL), and waits until it
// listens.
func startServeChild(t *testing.T, ctx context.Context, db, listen, key string) *childReplica {
	t.Helper()
	env := []string{gracefulChildEnv + "=1", "HITL_DB=" + db, "HITL_LISTEN=" + listen, "HITL_SEAL_KEY_FILE=" + key,
		"HITL_CONFIG=", "HITL_TOKENS=", "SLACK_APP_TOKEN=", "SLACK_BOT_TOKEN=",
		"HITL_RATE_TOKEN_PER_MINUTE=0", "HITL_RATE_RUN_PER_MINUTE=0", "HITL_RATE_POLICY_PER_MINUTE=0", "HITL_RATE_CONTROL_PER_MINUTE=0"}
	return startChild(t, ctx, "TestGracefulServeChild", "hitl serve", env)
}

// stop sends sig to the child `hitl serve` and requires it to exit 0,
// having said it shuts down, within ShutdownBound.
func (c *childReplica) stop(t *testing.T, sig syscall.Signal) {
	t.Helper()
	start := time.Now()
	require.NoError(t, c.cmd.Process.Signal(sig))
	<-c.stderrDone
	require.NoError(t, c.cmd.Wait(), "hitl serve did not exit cleanly on %s:\n%s", sig, c.log.String())
	require.Less(t, time.Since(start), ShutdownBound, "hitl serve took longer than its bound to exit")
	require.Contains(t, c.log.String(), "hitl: shutting down")
}

// seenProxy is a front proxy that records the requests it passes, so a
// test can wait until a client's request reached the service (a long poll
// parked, a look-up tried) without sleeping.
type seenProxy struct {
	*frontProxy
	mu      sync.Mutex
	seen    []*http.Request
	changed chan struct{}
	// spoil, when set, answers the first request to each path it
	// matches 200 with spoilBody instead of passing it on; spoiled counts
	// them.
	spoil     func(*http.Request) bool
	spoilBody string
	spoiled   map[string]bool
}

func newSeenProxy(t *testing.T, backend string) *seenProxy {
	t.Helper()
	p := &seenProxy{frontProxy: newFrontProxy(t, backend), changed: make(chan struct{}), spoiled: map[string]bool{}}
	p.intercept(func(w http.ResponseWriter, r *http.Request) bool {
		p.mu.Lock()
		p.seen = append(p.seen, r.Clone(context.Background()))
		close(p.changed)
		p.changed = make(chan struct{})
		spoil := p.spoil != nil && p.spoil(r) && !p.spoiled[r.URL.Path]
		if spoil {
			p.spoiled[r.URL.Path] = true
		}
		p.mu.Unlock()
		if spoil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, p.spoilBody)
		}
		return spoil
	})
	return p
}

// spoiledPaths are the paths whose first request got the spoiled body.
func (p *seenProxy) spoiledPaths() map[string]bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]bool{}
	for k := range p.spoiled {
		out[k] = true
	}
	return out
}

// url is where clients reach the service through the proxy.
func (p *seenProxy) url() string { return p.srv.URL }

// mark is how many requests the proxy has seen so far.
func (p *seenProxy) mark() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.seen)
}

// until waits until a request after mark satisfies ok, and returns it.
func (p *seenProxy) until(t *testing.T, mark int, what string, ok func(*http.Request) bool) *http.Request {
	t.Helper()
	deadline := time.NewTimer(20 * time.Second)
	defer deadline.Stop()
	for {
		p.mu.Lock()
		for _, r := range p.seen[mark:] {
			if ok(r) {
				p.mu.Unlock()
				return r
			}
		}
		mark = len(p.seen)
		ch := p.changed
		p.mu.Unlock()
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("no request reached the service: %s", what)
			return nil
		}
	}
}

// questionPoll reports a question's long poll (GET /api/questions/q_…?wait=).
func questionPoll(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/api/questions/q_") && r.URL.Query().Has("wait")
}

// cliAs runs one hitl command as user against url, in the background.
func cliAs(ctx context.Context, url, user string, stdin io.Reader, args ...string) <-chan cliResult {
	return cliAsTo(ctx, url, user, stdin, nil, args...)
}

// cliAsTo is cliAs writing stdout to stdout too (when not nil).
func cliAsTo(ctx context.Context, url, user string, stdin io.Reader, stdout io.Writer, args ...string) <-chan cliResult {
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	ch := make(chan cliResult, 1)
	go func() {
		var out, errb syncBuffer
		var w io.Writer = &out
		if stdout != nil {
			w = io.MultiWriter(&out, stdout)
		}
		e := &env{stdin: stdin, stdout: w, stderr: &errb, getenv: func(k string) string {
			switch k {
			case "HITL_URL":
				return url
			case "USER":
				return user
			}
			return ""
		}}
		code := run(ctx, args, e)
		ch <- cliResult{code, out.String(), errb.String()}
	}()
	return ch
}

// sseEvent is one event of GET /api/events, as an EventSource sees it.
type sseEvent struct {
	id, typ string
	data    map[string]any
}

// followEvents is an EventSource over the API's stream at urls (tried in
// turn): it resumes with Last-Event-ID whenever the stream ends or cannot
// be reached, after back is closed (the service is there again), and sends
// every event on the returned channel until ctx ends.
func followEvents(ctx context.Context, urls []string, query string, back <-chan struct{}) <-chan sseEvent {
	out := make(chan sseEvent, 64)
	go func() {
		last, i := "", 0
		for ctx.Err() == nil {
			// The first stream replays the run's log (after=0): a stream
			// that starts live could subscribe after the question it waits
			// for was asked; later ones resume with Last-Event-ID.
			url := urls[i%len(urls)] + "/api/events?" + query
			if last == "" {
				url += "&after=0"
			}
			last = readEvents(ctx, url, last, out)
			i++
			select {
			case <-back:
			case <-ctx.Done():
			}
		}
	}()
	return out
}

// readEvents reads one stream from after last until it ends, and returns
// the last id it saw.
func readEvents(ctx context.Context, url, last string, out chan<- sseEvent) string {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return last
	}
	if last != "" {
		req.Header.Set("Last-Event-ID", last)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return last
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return last
	}
	var ev sseEvent
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if ev.typ != "" {
				if ev.id != "" {
					last = ev.id
				}
				select {
				case out <- ev:
				case <-ctx.Done():
					return last
				}
			}
			ev = sseEvent{}
		case strings.HasPrefix(line, "id: "):
			ev.id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "event: "):
			ev.typ = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			_ = json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev.data)
		}
	}
	return last
}

// nextEvent waits for the next event of typ on ch.
func nextEvent(t *testing.T, ch <-chan sseEvent, typ string) sseEvent {
	t.Helper()
	deadline := time.NewTimer(60 * time.Second)
	defer deadline.Stop()
	for {
		select {
		case ev := <-ch:
			if ev.typ == typ {
				return ev
			}
		case <-deadline.C:
			t.Fatalf("no %s event", typ)
			return sseEvent{}
		}
	}
}

// onlyQuestion requires run to hold exactly one question (nothing was
// asked twice) and returns it.
func onlyQuestion(t *testing.T, c *client.Client, run string) *hitl.Question {
	t.Helper()
	page, err := c.QuestionPage(context.Background(), hitl.QuestionFilter{RunID: run})
	require.NoError(t, err)
	require.Len(t, page.Questions, 1, "run %s holds exactly one question: nothing was asked twice", run)
	return page.Questions[0]
}
