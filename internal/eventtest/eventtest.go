// Package eventtest waits, in tests, for an event on the service's log:
// woken by the service's change notifications, never by sleeping.
package eventtest

import (
	"context"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/service"
)

// Deadline bounds a wait.
const Deadline = 10 * time.Second

// Until waits until svc's log holds an event matching ok (read as an
// admin), failing tb after Deadline.
func Until(tb testing.TB, svc *service.Service, what string, ok func(*hitl.Event) bool) {
	tb.Helper()
	deadline := time.After(Deadline)
	admin := auth.WithPrincipal(context.Background(), auth.TokenPrincipal("eventtest", []auth.Scope{auth.ScopeAdmin}, ""))
	after := uint64(0)
	for {
		changed := svc.Log.Changed()
		evs, last, err := svc.Log.Events(admin, after, 0)
		if err != nil {
			tb.Fatalf("reading the event log: %v", err)
		}
		after = last
		for _, ev := range evs {
			if ok(ev) {
				return
			}
		}
		select {
		case <-changed:
		case <-deadline:
			tb.Fatalf("timed out waiting for %s", what)
		}
	}
}
