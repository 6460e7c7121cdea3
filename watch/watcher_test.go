package watch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// within bounds every wait of these tests.
const within = 10 * time.Second

// lines is a watcher's log, and a way to wait for a line.
type lines struct {
	mu      sync.Mutex
	all     []string
	written chan struct{}
}

func newLines() *lines { return &lines{written: make(chan struct{})} }

func (l *lines) add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all = append(l.all, line)
	close(l.written)
	l.written = make(chan struct{})
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.all, "\n")
}

// waitFor waits until a line holds text.
func (l *lines) waitFor(t *testing.T, text string) {
	t.Helper()
	deadline := time.After(within)
	for {
		l.mu.Lock()
		ok, ch := strings.Contains(strings.Join(l.all, "\n"), text), l.written
		l.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("the watcher never said %q; it said:\n%s", text, l.String())
		}
	}
}

// running is a watcher running over a service in memory.
type running struct {
	svc  *service.Service
	w    *Watcher
	log  *lines
	stop context.CancelFunc
	done chan error
}

// watchDirs starts a watcher of roots (each its own run), asking as
// local:tester; tune changes the watcher before it runs.
func watchDirs(t *testing.T, tune func(*Watcher), roots ...string) *running {
	t.Helper()
	svc := service.NewService(memstore.New(), service.ServiceConfig{Notifier: notify.New(), Clock: clocktest.New(time.Now())})
	r := &running{svc: svc, log: newLines(), done: make(chan error, 1)}
	var dirs []Dir
	for i, root := range roots {
		dirs = append(dirs, Dir{Path: root, Run: "watch-" + string(rune('a'+i))})
	}
	w, err := New(Config{Client: svc.Questions, Dirs: dirs, Agent: "test", Log: r.log.add})
	require.NoError(t, err)
	if tune != nil {
		tune(w)
	}
	r.w = w
	ctx, cancel := context.WithCancel(auth.WithPrincipal(context.Background(), auth.LocalPrincipal("tester")))
	r.stop = cancel
	go func() { r.done <- w.Run(ctx) }()
	t.Cleanup(func() { r.stopped(t) })
	return r
}

// stopped stops the watcher and fails unless Run returns in time.
func (r *running) stopped(t *testing.T) {
	t.Helper()
	r.stop()
	select {
	case err, ok := <-r.done:
		if ok {
			assert.NoError(t, err)
			close(r.done)
		}
	case <-time.After(within):
		t.Fatalf("the watcher did not stop; it said:\n%s", r.log.String())
	}
}

// pending waits until the service holds a pending question with text.
func (r *running) pending(t *testing.T, text string) *hitl.Question {
	t.Helper()
	deadline := time.After(within)
	for {
		changed := r.svc.Log.Changed()
		if q := r.find(t, text, hitl.StatusPending); q != nil {
			return q
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("no pending question %q; the watcher said:\n%s", text, r.log.String())
		}
	}
}

// find returns a question with text and status st, or nil.
func (r *running) find(t *testing.T, text string, st hitl.Status) *hitl.Question {
	t.Helper()
	page, err := r.svc.Questions.QuestionPage(principaltest.As(context.Background(), "admin:test"), hitl.QuestionFilter{Limit: 500})
	require.NoError(t, err)
	for _, q := range page.Questions {
		if q.Question == text && (st == "" || q.Status == st) {
			return q
		}
	}
	return nil
}

func (r *running) answer(t *testing.T, id, value string) {
	t.Helper()
	_, err := r.svc.Questions.Answer(principaltest.As(context.Background(), "admin:test"), id, hitl.Response{Value: value})
	require.NoError(t, err)
}

// engineDir is a directory whose engine asks prompt.
func engineDir(t *testing.T, prompt string) string {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(interaction(root), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(interaction(root), RequestFile), []byte(`{"prompt":"`+prompt+`","input_type":"text"}`), 0o644))
	return root
}

// TestWatchRefuses: a request file the watcher must not read is refused
// and said, never asked, and never holds up the other directory, which
// is asked and answered; the watcher then stops. The refused directory
// is the first, looked at first.
func TestWatchRefuses(t *testing.T) {
	for _, c := range []struct {
		name, said string
		mk         func(t *testing.T, root, elsewhere string)
	}{
		{"request.json a FIFO", "is not a regular file", func(t *testing.T, root, _ string) {
			require.NoError(t, os.Remove(filepath.Join(interaction(root), RequestFile)))
			require.NoError(t, syscall.Mkfifo(filepath.Join(interaction(root), RequestFile), 0o644))
		}},
		{"request.json a link", "request.json is a symbolic link: not followed", func(t *testing.T, root, elsewhere string) {
			require.NoError(t, os.Rename(filepath.Join(interaction(root), RequestFile), filepath.Join(elsewhere, "r.json")))
			relink(t, filepath.Join(interaction(root), RequestFile), filepath.Join(elsewhere, "r.json"))
		}},
		{"interaction a link", "interaction is a symbolic link: not followed", func(t *testing.T, root, elsewhere string) {
			require.NoError(t, os.Rename(filepath.Join(interaction(root), RequestFile), filepath.Join(elsewhere, RequestFile)))
			relink(t, interaction(root), elsewhere)
		}},
		{"request.json over 64 KiB", "is larger than 65536 bytes", func(t *testing.T, root, _ string) {
			f, err := os.OpenFile(filepath.Join(interaction(root), RequestFile), os.O_APPEND|os.O_WRONLY, 0)
			require.NoError(t, err)
			_, err = f.WriteString(strings.Repeat(" ", MaxRequestFile))
			require.NoError(t, err)
			require.NoError(t, f.Close())
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			bad, good := engineDir(t, "Refused?"), engineDir(t, "Asked?")
			c.mk(t, bad, t.TempDir())
			r := watchDirs(t, nil, bad, good)
			q := r.pending(t, "Asked?")
			r.answer(t, q.ID, "yes")
			r.log.waitFor(t, "wrote "+filepath.Join(interaction(good), ResponseFile))
			r.log.waitFor(t, c.said)
			assert.Nil(t, r.find(t, "Refused?", ""), "never asked")
			_, err := os.Lstat(filepath.Join(interaction(bad), ResponseFile))
			assert.ErrorIs(t, err, os.ErrNotExist)
			r.stopped(t)
		})
	}
}

// TestWatchInteractionSwappedForALink: a request asked, then its
// interaction directory swapped at once (RENAME_EXCHANGE) for a link to
// one holding the same request: the question is withdrawn and nothing is
// written there.
func TestWatchInteractionSwappedForALink(t *testing.T) {
	root, elsewhere := engineDir(t, "Swapped?"), t.TempDir()
	r := watchDirs(t, nil, root)
	q := r.pending(t, "Swapped?")
	r.log.waitFor(t, "asked "+q.ID)
	target := filepath.Join(elsewhere, "interaction")
	require.NoError(t, os.Mkdir(target, 0o755))
	b, err := os.ReadFile(filepath.Join(interaction(root), RequestFile))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(target, RequestFile), b, 0o644))
	link := filepath.Join(root, ".delta", "link")
	require.NoError(t, os.Symlink(target, link))
	require.NoError(t, unix.Renameat2(unix.AT_FDCWD, link, unix.AT_FDCWD, interaction(root), unix.RENAME_EXCHANGE))
	deadline := time.After(within)
	for r.find(t, "Swapped?", hitl.StatusCancelled) == nil {
		select {
		case <-r.svc.Log.Changed():
		case <-deadline:
			t.Fatalf("the question was not withdrawn; the watcher said:\n%s", r.log.String())
		}
	}
	got := r.find(t, "Swapped?", hitl.StatusCancelled)
	assert.Contains(t, got.CancelReason, "interaction is a symbolic link")
	_, err = r.svc.Questions.Answer(principaltest.As(context.Background(), "admin:test"), q.ID, hitl.Response{Value: "x"})
	assert.Equal(t, fault.ECONFLICT, fault.Code(err))
	_, err = os.Lstat(filepath.Join(target, ResponseFile))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// TestWatchStalledDirectory: a directory whose file reads never return
// (a hung disk) stalls neither another directory, which is asked and
// answered, nor stopping, which waits for it no longer than the grace.
func TestWatchStalledDirectory(t *testing.T) {
	stalled, good := engineDir(t, "Stalled?"), engineDir(t, "Asked?")
	hung := make(chan struct{})
	t.Cleanup(func() { close(hung) })
	entered := make(chan struct{})
	var once sync.Once
	r := watchDirs(t, func(w *Watcher) {
		w.grace = 100 * time.Millisecond
		w.read = func(root string) ([]byte, error) {
			if root == stalled {
				once.Do(func() { close(entered) })
				<-hung
			}
			return readRequest(root)
		}
	}, stalled, good)
	select {
	case <-entered:
	case <-time.After(within):
		t.Fatal("the stalled directory was never read")
	}
	q := r.pending(t, "Asked?")
	r.answer(t, q.ID, "yes")
	r.log.waitFor(t, "wrote "+filepath.Join(interaction(good), ResponseFile))
	b, err := os.ReadFile(filepath.Join(interaction(good), ResponseFile))
	require.NoError(t, err)
	assert.Equal(t, "yes", string(b))
	r.stopped(t)
	assert.Contains(t, r.log.String(), "stopping without waiting longer")
}
