// Package watch bridges the file protocol (docs/protocol.md#the-file-bridge) to hitl: an engine that
// pauses by writing .delta/interaction/request.json, setting its status to
// WAITING_FOR_INPUT and exiting 101 has its question asked in hitl, and
// the answer is written to response.txt beside the request for the
// engine's resume. The files are followed with fsnotify (file events, not
// polling).
//
// One question per request: its idempotency key comes from the request
// file's path and content (timestamp included), so a watcher started again
// finds the question it asked before. A request file that goes away or
// changes cancels its question; a response.txt written by someone else
// does too.
//
// The files are handled as untrusted: request.json is read only when it
// is a regular file of at most MaxRequestFile bytes, opened without
// following a symbolic link and without blocking (a FIFO is refused);
// .delta and .delta/interaction must be directories, not links to one;
// response.txt is written as a new file beside it, renamed into place.
// Each directory has a goroutine of its own, so one whose files stall
// never holds up the others (files.go).
package watch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
)

// Client is what the watcher needs of hitl: client.Client (over HTTP) or
// a hitl.QuestionService.
type Client interface {
	Create(ctx context.Context, runID string, n hitl.NewQuestion) (*hitl.Question, bool, error)
	Wait(ctx context.Context, id string) (*hitl.Question, error)
	Receive(ctx context.Context, id string) (*hitl.Question, error)
	Cancel(ctx context.Context, id, reason string) (*hitl.Question, error)
	QuestionPage(ctx context.Context, f hitl.QuestionFilter) (hitl.QuestionPage, error)
}

var _ Client = hitl.QuestionService(nil)

// Dir is a directory to watch and the run its questions are asked in.
type Dir struct {
	Path string // the engine's directory, holding .delta/interaction
	Run  string
}

// Config is what a Watcher watches and whom it asks.
type Config struct {
	Client Client
	Dirs   []Dir
	Agent  string // who asks, shown to people (Context.Agent)
	// Log, when set, gets one line per thing done or gone wrong. No line
	// ever holds an answer.
	Log func(line string)
}

// Watcher follows the request files of its directories. Each directory
// is tended by a goroutine of its own, which alone reads and writes its
// files and holds its state: a directory whose files do not answer (a
// slow or hung disk) stalls only itself, never the others, the file
// events, or stopping.
type Watcher struct {
	cfg   Config
	fw    *fsnotify.Watcher
	dirs  []*dir
	ctx   context.Context // Run's: ends when the watcher stops
	wg    sync.WaitGroup  // the directories' goroutines and their askings
	logMu sync.Mutex

	// read reads a directory's request file (readRequest; tests stall it).
	read func(root string) ([]byte, error)
	// grace is how long Run, stopping, waits for the directories'
	// goroutines before it returns without them (StopGrace).
	grace time.Duration
}

// StopGrace is how long a stopping watcher waits for its directories'
// goroutines (an asking finishing its create, a file operation that has
// not returned) before it returns anyway; questions left pending are
// taken up by the next watcher.
const StopGrace = 5 * time.Second

// New returns a watcher of cfg.Dirs, each of which must be a directory.
func New(cfg Config) (*Watcher, error) {
	if cfg.Client == nil || len(cfg.Dirs) == 0 {
		return nil, fault.Errorf(fault.EINVALID, "a watcher needs a client and at least one directory")
	}
	w := &Watcher{cfg: cfg, read: readRequest, grace: StopGrace}
	for _, d := range cfg.Dirs {
		abs, err := filepath.Abs(d.Path)
		if err != nil {
			return nil, fault.Errorf(fault.EINVALID, "%s: %v", d.Path, err)
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return nil, fault.Errorf(fault.EINVALID, "%s is not a directory", d.Path)
		}
		if err := steer.ValidateRunID(d.Run); err != nil {
			return nil, err
		}
		w.dirs = append(w.dirs, &dir{root: abs, run: d.Run, poke: make(chan struct{}, 1), results: make(chan result)})
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fault.Errorf(fault.EINTERNAL, "watching files: %v", err)
	}
	w.fw = fw
	return w, nil
}

// Run watches until ctx ends (nil then) or file events cannot be had. On
// return, questions still pending stay pending: the next watcher of the
// same directories takes them up. Stopping waits at most the watcher's
// grace (StopGrace) for the directories' goroutines.
func (w *Watcher) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	w.ctx = ctx
	defer w.fw.Close()
	defer w.stopped()
	defer cancel()
	for _, d := range w.dirs {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			w.tend(ctx, d)
		}()
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.fw.Events:
			if !ok {
				return fault.Errorf(fault.EINTERNAL, "file events stopped")
			}
			for _, d := range w.dirs {
				if d.concerns(ev.Name) {
					d.wake()
				}
			}
		case err, ok := <-w.fw.Errors:
			if !ok {
				return fault.Errorf(fault.EINTERNAL, "file events stopped")
			}
			w.logf("file events: %v; looking at every directory again", err)
			for _, d := range w.dirs {
				d.wake()
			}
		}
	}
}

// stopped waits for the directories' goroutines, at most the grace.
func (w *Watcher) stopped() {
	done := make(chan struct{})
	go func() {
		w.wg.Wait()
		close(done)
	}()
	t := time.NewTimer(w.grace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		w.logf("stopping without waiting longer for a directory whose files or service calls have not answered in %s", w.grace)
	}
}

// wake has d's goroutine look at its files, without waiting for it.
func (d *dir) wake() {
	select {
	case d.poke <- struct{}{}:
	default: // a look is due already
	}
}

// tend is d's goroutine: it looks at d's files when they may have
// changed (wake) and deals with the outcomes of d's askings, until ctx
// ends. It alone touches d's state.
func (w *Watcher) tend(ctx context.Context, d *dir) {
	w.addWatches(d)
	w.sweep(ctx, d)
	w.reconcile(ctx, d)
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.poke:
			w.reconcile(ctx, d)
		case r := <-d.results:
			w.settle(r)
		}
	}
}

// concerns reports whether an event on path may change d's request:
// the directories on the way to it, or a file beside it.
func (d *dir) concerns(path string) bool {
	for _, l := range d.levels() {
		if path == l {
			return true
		}
	}
	return filepath.Dir(path) == d.interaction()
}

// addWatches watches the levels of d that exist (watching again is
// harmless). A level that is a symbolic link is not watched through: its
// files are refused (openInteraction).
func (w *Watcher) addWatches(d *dir) {
	for i, l := range d.levels() {
		stat := os.Lstat
		if i == 0 {
			stat = os.Stat // the directory named, as named
		}
		if fi, err := stat(l); err != nil || !fi.IsDir() {
			return
		}
		if err := w.fw.Add(l); err != nil && !errors.Is(err, os.ErrNotExist) {
			w.logf("%s: cannot watch: %v", l, err)
		}
	}
}

// reconcile brings what is asked for d in line with its files.
func (w *Watcher) reconcile(ctx context.Context, d *dir) {
	w.addWatches(d)
	b, err := w.read(d.root)
	var refused *refusedError
	switch {
	case errors.Is(err, os.ErrNotExist):
		w.stop(d, "request.json was removed: the engine no longer waits for an answer")
		d.settled, d.bad = "", ""
		return
	case errors.As(err, &refused):
		w.stop(d, "request.json can no longer be read: "+refused.why)
		d.settled = ""
		if d.bad != refused.why {
			d.bad = refused.why
			w.logf("%s (not asked)", refused.why)
		}
		return
	case err != nil:
		w.logf("%s: cannot read it: %v", d.request(), err)
		return
	case len(strings.TrimSpace(string(b))) == 0:
		return // being written: its content comes with the next event
	}
	key := Key(d.request(), b)
	if d.active != nil && d.active.key != key {
		w.stop(d, "request.json changed: the engine asks something else")
	}
	req, err := ParseRequest(b)
	if err != nil {
		if d.bad != key {
			d.bad = key
			w.logf("%s: not asked: %s (fix the file; it is read again when it changes)", d.request(), fault.Message(err))
		}
		return
	}
	if exists(d.response()) {
		// Answered already: by this watcher before it restarted, or by
		// someone writing response.txt themselves.
		if d.active != nil {
			w.stop(d, "response.txt was written outside hitl")
		}
		d.settled = key
		return
	}
	if d.active != nil || d.settled == key || ctx.Err() != nil {
		return // nothing new to ask, or the watcher stopped while the files were read
	}
	actx, cancel := context.WithCancelCause(ctx)
	d.active = &asking{key: key, cancel: cancel}
	n := req.Question(key, filepath.Base(d.root), w.cfg.Agent)
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		w.ask(actx, d, n)
	}()
}

// stop withdraws d's active question, if any, cancelling it with reason.
func (w *Watcher) stop(d *dir, reason string) {
	if d.active == nil {
		return
	}
	d.active.cancel(&withdrawn{reason: reason})
	d.active = nil
}

// settle deals with an asking's outcome: an answer is written to
// response.txt, anything else is said.
func (w *Watcher) settle(r result) {
	d := r.d
	if d.active == nil || d.active.key != r.key {
		return // withdrawn meanwhile
	}
	d.active.cancel(context.Canceled)
	d.active, d.settled = nil, r.key
	q := r.q
	switch {
	case r.err != nil && q == nil:
		w.logf("%s: not asked: %s", d.request(), fault.Message(r.err))
	case r.err != nil:
		w.logf("%s: waiting for %s failed: %s", d.request(), q.ID, fault.Message(r.err))
	case q.Status == hitl.StatusAnswered:
		w.answer(d, r.key, q)
	case q.Status == hitl.StatusTimeout:
		w.logf("%s: %s timed out without an answer; nothing written (the engine still waits: write %s yourself, or remove the request)", d.request(), q.ID, ResponseFile)
	case q.Status == hitl.StatusCancelled:
		msg := fmt.Sprintf("%s: %s was cancelled", d.request(), q.ID)
		if q.RespondedBy != "" {
			msg += " by " + q.RespondedBy
		}
		if q.CancelReason != "" {
			msg += ": " + q.CancelReason
		}
		w.logf("%s; nothing written", msg)
	}
}

// answer writes q's answer for the engine, if its request is still the
// one q was asked for.
func (w *Watcher) answer(d *dir, key string, q *hitl.Question) {
	if b, err := w.read(d.root); err != nil || Key(d.request(), b) != key {
		w.logf("%s: %s was answered by %s after its request went away; nothing written", d.request(), q.ID, q.RespondedBy)
		return
	}
	if q.Response == nil || q.Response.Redacted {
		w.logf("%s: %s was answered by %s but the answer was not handed over; nothing written", d.request(), q.ID, q.RespondedBy)
		return
	}
	if err := writeResponse(d.root, q.Response.String()); err != nil {
		w.logf("%s: %s was answered by %s but %v", d.request(), q.ID, q.RespondedBy, err)
		return
	}
	w.logf("%s: %s answered by %s; wrote %s", d.request(), q.ID, q.RespondedBy, d.response())
}

// sweep cancels the questions a watcher asked in d's run for requests
// that went away while no watcher was running.
func (w *Watcher) sweep(ctx context.Context, d *dir) {
	want := ""
	if b, err := w.read(d.root); err == nil && !exists(d.response()) {
		want = Key(d.request(), b)
	}
	sctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	f := hitl.QuestionFilter{RunID: d.run, Status: hitl.StatusPending, Limit: 100}
	for {
		page, err := w.cfg.Client.QuestionPage(sctx, f)
		if err != nil {
			if ctx.Err() == nil {
				w.logf("%s: cannot look for withdrawn questions in run %s: %s", d.root, d.run, fault.Message(err))
			}
			return
		}
		for _, q := range page.Questions {
			if !strings.HasPrefix(q.IdempotencyKey, keyPrefix) || q.IdempotencyKey == want {
				continue
			}
			reason := "request.json went away while hitl watch was stopped"
			if _, err := w.cfg.Client.Cancel(sctx, q.ID, reason); err != nil && fault.Code(err) != fault.ECONFLICT {
				w.logf("could not cancel %s (%s): %s", q.ID, reason, fault.Message(err))
			} else if err == nil {
				w.logf("cancelled %s: %s", q.ID, reason)
			}
		}
		if page.NextCursor == "" {
			return
		}
		f.Cursor = page.NextCursor
	}
}

func (w *Watcher) logf(format string, args ...any) {
	if w.cfg.Log == nil {
		return
	}
	w.logMu.Lock()
	defer w.logMu.Unlock()
	w.cfg.Log(fmt.Sprintf(format, args...))
}
