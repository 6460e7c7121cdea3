package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// engine plays the file bridge's async mode in dir: pause writes
// .delta/interaction/request.json, sets metadata.json's status to
// WAITING_FOR_INPUT and "exits" 101; resume finds WAITING_FOR_INPUT, reads
// response.txt (101 again while there is none), cleans both files up and
// goes on.
type engine struct {
	dir   string
	clock int // seconds added to the timestamp, so each request is new
}

func (g *engine) interaction() string { return filepath.Join(g.dir, ".delta", "interaction") }
func (g *engine) request() string     { return filepath.Join(g.interaction(), "request.json") }
func (g *engine) response() string    { return filepath.Join(g.interaction(), "response.txt") }
func (g *engine) metadata() string    { return filepath.Join(g.dir, ".delta", "metadata.json") }

func (g *engine) pause(t *testing.T, prompt, inputType string, sensitive bool) int {
	t.Helper()
	require.NoError(t, os.MkdirAll(g.interaction(), 0o755))
	g.clock++
	req := map[string]any{"prompt": prompt, "input_type": inputType,
		"timestamp": time.Date(2025, 10, 1, 10, 0, g.clock, 0, time.UTC).Format("2006-01-02T15:04:05.000Z")}
	if sensitive {
		req["sensitive"] = true
	}
	b, err := json.Marshal(req)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(g.request(), b, 0o644))
	require.NoError(t, os.WriteFile(g.metadata(), []byte(`{"status":"WAITING_FOR_INPUT"}`), 0o644))
	return exitNeedsInput
}

// resume is `delta run` again: the answer and 0, or "" and 101.
func (g *engine) resume(t *testing.T) (string, int) {
	t.Helper()
	meta, err := os.ReadFile(g.metadata())
	require.NoError(t, err)
	require.Contains(t, string(meta), "WAITING_FOR_INPUT")
	b, err := os.ReadFile(g.response())
	if os.IsNotExist(err) {
		return "", exitNeedsInput
	}
	require.NoError(t, err)
	require.NoError(t, os.Remove(g.request()))
	require.NoError(t, os.Remove(g.response()))
	require.NoError(t, os.WriteFile(g.metadata(), []byte(`{"status":"RUNNING"}`), 0o644))
	return string(b), 0
}

// watcher is a running `hitl watch`.
type watcher struct {
	cancel context.CancelFunc
	done   chan int
	stderr *signalBuffer
}

func startWatch(t *testing.T, url string, dirs ...string) *watcher {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w := &watcher{cancel: cancel, done: make(chan int, 1), stderr: newSignalBuffer()}
	e := &env{stdin: strings.NewReader(""), stdout: &syncBuffer{}, stderr: w.stderr, getenv: func(k string) string {
		switch k {
		case "HITL_URL":
			return url
		case "USER":
			return "tester"
		}
		return ""
	}}
	go func() { w.done <- run(ctx, append([]string{"watch"}, dirs...), e) }()
	return w
}

// stop ends the watcher as Ctrl+C does and waits for it.
func (w *watcher) stop(t *testing.T) {
	t.Helper()
	w.cancel()
	select {
	case code, ok := <-w.done:
		if ok {
			assert.Equal(t, exitOK, code, w.stderr.String())
			close(w.done)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("hitl watch did not stop")
	}
}

// signalBuffer is a buffer that says when it was written to.
type signalBuffer struct {
	mu      sync.Mutex
	b       strings.Builder
	written chan struct{}
}

func newSignalBuffer() *signalBuffer { return &signalBuffer{written: make(chan struct{})} }

func (s *signalBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.written)
	s.written = make(chan struct{})
	return s.b.Write(p)
}

func (s *signalBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor waits until the buffer holds text.
func (s *signalBuffer) waitFor(t *testing.T, text string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		s.mu.Lock()
		ok, ch := strings.Contains(s.b.String(), text), s.written
		s.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("hitl watch never said %q; it said:\n%s", text, s.String())
		}
	}
}

// waitQuestion waits until m holds a question with text whose status is
// st, and returns it.
func waitQuestion(t *testing.T, m *Main, text string, st hitl.Status) *hitl.Question {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		changed := m.Service.Log.Changed()
		if q := findQuestion(t, m, text, st); q != nil {
			return q
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("no %s question %q", st, text)
		}
	}
}

func findQuestion(t *testing.T, m *Main, text string, st hitl.Status) *hitl.Question {
	t.Helper()
	qs := questionsAsked(t, m, text)
	for _, q := range qs {
		if q.Status == st {
			return q
		}
	}
	return nil
}

// questionsAsked lists every question m holds with text.
func questionsAsked(t *testing.T, m *Main, text string) []*hitl.Question {
	t.Helper()
	var out []*hitl.Question
	f := hitl.QuestionFilter{Limit: 500}
	for {
		page, err := m.Service.Questions.QuestionPage(principaltest.As(context.Background(), "admin:test"), f)
		require.NoError(t, err)
		for _, q := range page.Questions {
			if q.Question == text {
				out = append(out, q)
			}
		}
		if page.NextCursor == "" {
			return out
		}
		f.Cursor = page.NextCursor
	}
}

// waitFile waits, on file events, until path exists.
func waitFile(t *testing.T, path string) {
	t.Helper()
	fw, err := fsnotify.NewWatcher()
	require.NoError(t, err)
	defer fw.Close()
	require.NoError(t, fw.Add(filepath.Dir(path)))
	deadline := time.After(10 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		select {
		case <-fw.Events:
		case err := <-fw.Errors:
			t.Fatalf("watching %s: %v", path, err)
		case <-deadline:
			t.Fatalf("%s never appeared", path)
		}
	}
}

func TestWatchSeed002Engine(t *testing.T) {
	db := filepath.Join(t.TempDir(), "hitl.db")
	clock := clocktest.New(time.Now())
	m := startOn(t, db, clock)
	t.Cleanup(func() { _ = m.Close() })
	front := newFrontProxy(t, m.URL())
	ctx := principaltest.As(context.Background(), "admin:test")

	g := &engine{dir: t.TempDir()}
	w := startWatch(t, front.srv.URL, g.dir)
	t.Cleanup(func() { w.stop(t) }) // the last one started
	w.stderr.waitFor(t, "watching "+g.request())

	t.Run("a text question is asked and answered in response.txt", func(t *testing.T) {
		require.Equal(t, exitNeedsInput, g.pause(t, "Which database to migrate?", "text", false))
		q := waitQuestion(t, m, "Which database to migrate?", hitl.StatusPending)
		assert.True(t, strings.HasPrefix(q.RunID, "watch-"+filepath.Base(g.dir)+"-"), q.RunID)
		assert.Equal(t, "local:tester", q.Asker)

		r := cli(ctx, m, "", "answer", q.ID, "production")
		require.Equal(t, 0, r.code, r.stderr)
		waitFile(t, g.response())
		fi, err := os.Stat(g.response())
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
		answer, code := g.resume(t)
		assert.Equal(t, 0, code)
		assert.Equal(t, "production", answer)
		leftovers, err := filepath.Glob(filepath.Join(g.interaction(), ".response-*"))
		require.NoError(t, err)
		assert.Empty(t, leftovers, "no temporary file left behind")
	})

	t.Run("a sensitive question survives restarts of both sides and is asked once", func(t *testing.T) {
		const prompt, secret = "API key for staging?", "sk-very-secret-9f8e7d"
		require.Equal(t, exitNeedsInput, g.pause(t, prompt, "password", true))
		q := waitQuestion(t, m, prompt, hitl.StatusPending)
		assert.True(t, q.Sensitive)
		w.stderr.waitFor(t, "asked "+q.ID)
		_, code := g.resume(t)
		assert.Equal(t, exitNeedsInput, code, "no answer yet: the engine exits 101 again")

		// Both sides restart: the watcher, and the service on the same
		// database behind the same URL.
		w.stop(t)
		require.NoError(t, m.Close())
		m = startOn(t, db, clock)
		front.setBackend(t, m.URL())
		w = startWatch(t, front.srv.URL, g.dir)
		w.stderr.waitFor(t, "asked "+q.ID) // the same question, found by its key

		r := cli(ctx, m, secret+"\n", "answer", q.ID, "-")
		require.Equal(t, 0, r.code, r.stderr)
		waitFile(t, g.response())
		answer, code := g.resume(t)
		assert.Equal(t, 0, code)
		assert.Equal(t, secret, answer)
		assert.Len(t, questionsAsked(t, m, prompt), 1, "asked once across the restarts")
		assert.NotContains(t, w.stderr.String(), secret, "a sensitive answer is never printed")
	})

	t.Run("a request that goes away cancels its question", func(t *testing.T) {
		const prompt = "Deploy to production?"
		g.pause(t, prompt, "confirmation", false)
		q := waitQuestion(t, m, prompt, hitl.StatusPending)
		assert.Equal(t, hitl.BooleanResponse, q.ResponseType)
		require.NoError(t, os.Remove(g.request())) // the engine answered itself
		got := waitQuestion(t, m, prompt, hitl.StatusCancelled)
		assert.Contains(t, got.CancelReason, "request.json was removed")
		assert.Equal(t, q.ID, got.ID)
		_, err := os.Stat(g.response())
		assert.True(t, os.IsNotExist(err), "nothing written for a withdrawn request")
	})

	t.Run("a request removed while the watcher is stopped is cancelled when it starts", func(t *testing.T) {
		const prompt = "Which region?"
		g.pause(t, prompt, "text", false)
		q := waitQuestion(t, m, prompt, hitl.StatusPending)
		w.stderr.waitFor(t, "asked "+q.ID)
		w.stop(t)
		require.NoError(t, os.Remove(g.request()))
		w = startWatch(t, front.srv.URL, g.dir)
		got := waitQuestion(t, m, prompt, hitl.StatusCancelled)
		assert.Equal(t, q.ID, got.ID)
		assert.Contains(t, got.CancelReason, "while hitl watch was stopped")
	})

	t.Run("a new request replaces the old one, and response.txt written by hand cancels", func(t *testing.T) {
		g.pause(t, "First?", "text", false)
		first := waitQuestion(t, m, "First?", hitl.StatusPending)
		g.pause(t, "Second?", "text", false)
		second := waitQuestion(t, m, "Second?", hitl.StatusPending)
		got := waitQuestion(t, m, "First?", hitl.StatusCancelled)
		assert.Equal(t, first.ID, got.ID)
		assert.Contains(t, got.CancelReason, "request.json changed")

		require.NoError(t, os.WriteFile(g.response(), []byte("by hand\n"), 0o600)) // the file bridge's echo
		got = waitQuestion(t, m, "Second?", hitl.StatusCancelled)
		assert.Equal(t, second.ID, got.ID)
		assert.Contains(t, got.CancelReason, "response.txt was written outside hitl")
		answer, code := g.resume(t)
		assert.Equal(t, 0, code)
		assert.Equal(t, "by hand\n", answer, "the watcher leaves a person's response as it is")
	})

	t.Run("a bad request.json is reported and not asked", func(t *testing.T) {
		require.NoError(t, os.WriteFile(g.request(), []byte(`{"prompt": "", "input_type": "text"}`), 0o644))
		w.stderr.waitFor(t, "not asked: its prompt is missing or empty")
		require.NoError(t, os.WriteFile(g.request(), []byte(`{"prompt": "Colour?", "input_type": "colour"}`), 0o644))
		w.stderr.waitFor(t, `not asked: its input_type "colour" is not text, password or confirmation`)
		require.NoError(t, os.WriteFile(g.request(), []byte(`not json`), 0o644))
		w.stderr.waitFor(t, "not asked: it is not a JSON object")
		assert.Empty(t, questionsAsked(t, m, "Colour?"))

		// Fixed, it is asked.
		require.NoError(t, os.WriteFile(g.request(), []byte(`{"prompt": "Colour?", "input_type": "text", "timestamp": "2025-10-01T11:00:00.000Z"}`), 0o644))
		waitQuestion(t, m, "Colour?", hitl.StatusPending)
		require.NoError(t, os.Remove(g.request()))
		waitQuestion(t, m, "Colour?", hitl.StatusCancelled)
	})
}

func TestWatchUsage(t *testing.T) {
	r := runOffline("watch", "--run", "r1", "a", "b")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, "hitl watch --run takes one DIR")

	r = runOffline("watch", "--run", "r1", filepath.Join(t.TempDir(), "missing"))
	assert.Equal(t, exitUsage, r.code, r.stderr)
	assert.Contains(t, r.stderr, "is not a directory")
}

func TestWatchTwoDirectories(t *testing.T) {
	m := startMain(t)
	ctx := principaltest.As(context.Background(), "admin:test")
	g1, g2 := &engine{dir: filepath.Join(t.TempDir(), "deployer")}, &engine{dir: filepath.Join(t.TempDir(), "namer")}
	require.NoError(t, os.MkdirAll(g1.dir, 0o755))
	require.NoError(t, os.MkdirAll(g2.dir, 0o755))
	w := startWatch(t, m.URL(), g1.dir, g2.dir)
	t.Cleanup(func() { w.stop(t) })

	g1.pause(t, "Deploy now?", "confirmation", false)
	g2.pause(t, "Release name?", "text", false)
	deploy := waitQuestion(t, m, "Deploy now?", hitl.StatusPending)
	name := waitQuestion(t, m, "Release name?", hitl.StatusPending)
	assert.True(t, strings.HasPrefix(deploy.RunID, "watch-deployer-"), deploy.RunID)
	assert.True(t, strings.HasPrefix(name.RunID, "watch-namer-"), name.RunID)

	r := cli(ctx, m, "", "answer", name.ID, "falcon")
	require.Equal(t, 0, r.code, r.stderr)
	waitFile(t, g2.response())
	answer, code := g2.resume(t)
	assert.Equal(t, 0, code)
	assert.Equal(t, "falcon", answer)

	// Answered while no watcher runs: the next one finds the answer by
	// the request's key and writes it, without asking again.
	w.stderr.waitFor(t, "asked "+deploy.ID)
	w.stop(t)
	r = cli(ctx, m, "", "answer", deploy.ID, "yes")
	require.Equal(t, 0, r.code, r.stderr)
	w = startWatch(t, m.URL(), g1.dir, g2.dir)
	waitFile(t, g1.response())
	answer, code = g1.resume(t)
	assert.Equal(t, 0, code)
	assert.Equal(t, "yes", answer)
	assert.Len(t, questionsAsked(t, m, "Deploy now?"), 1)
}
