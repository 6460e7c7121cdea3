package main

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/stretchr/testify/assert"
)

// failRecorder is a testing.TB that records a failure and ends the
// goroutine, as a failing test does.
type failRecorder struct {
	testing.TB
	mu     sync.Mutex
	failed bool
	msgs   []string
}

func (r *failRecorder) Helper() {}

func (r *failRecorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = true
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}

func (r *failRecorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	r.FailNow()
}

func (r *failRecorder) Fatal(args ...any) {
	r.Errorf("%s", fmt.Sprint(args...))
	r.FailNow()
}

func (r *failRecorder) FailNow() {
	r.mu.Lock()
	r.failed = true
	r.mu.Unlock()
	runtime.Goexit()
}

// failing runs f with a failRecorder in a goroutine of its own and
// returns the recorder once f returned or failed.
func failing(t *testing.T, f func(testing.TB)) *failRecorder {
	r := &failRecorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r
}

func TestSlackHelpersFailTheTestThatCalledThem(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // nothing will arrive: every wait fails at once
	e := &slackEnv{ctx: ctx, srv: slackfake.New(t)}
	q := &hitl.Question{ID: "q_never"}
	for name, helper := range map[string]func(testing.TB){
		"posted":       func(tb testing.TB) { e.posted(tb, testChannel, q) },
		"updated":      func(tb testing.TB) { e.updated(tb, slackfake.Message{Channel: testChannel, TS: "1.1"}) },
		"settled":      func(tb testing.TB) { e.settled(tb, make(chan waitResult)) },
		"ephemeralFor": func(tb testing.TB) { e.ephemeralFor(tb, "U0NOBODY", "never") },
		"liveMessage":  func(tb testing.TB) { e.liveMessage(tb, steerRun, has("never")) },
		"click":        func(tb testing.TB) { e.click(tb, "U0NOBODY", slackfake.Message{Blocks: []byte(`[]`)}, "none") },
	} {
		t.Run(name+" fails the test it was given", func(t *testing.T) {
			r := failing(t, helper)
			assert.True(t, r.failed, "the helper's failure went to the test it was given")
		})
	}
	assert.False(t, t.Failed(), "the parent test is untouched")
}
