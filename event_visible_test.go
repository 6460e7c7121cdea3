package hitl_test

import (
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/steer"
)

// TestEventVisibleTo is the table of who reads which event of the log
// (HTTP events and topics, SSE, web pages all read through it): each row
// fails when its rule is removed.
func TestEventVisibleTo(t *testing.T) {
	owner := auth.TokenPrincipal("ci", []auth.Scope{auth.ScopeAsk}, "")
	ops := auth.TokenPrincipal("ops", []auth.Scope{auth.ScopeControl}, "")
	person := auth.TokenPrincipal("alice", []auth.Scope{auth.ScopeAnswer}, "")
	admin := auth.TokenPrincipal("root", []auth.Scope{auth.ScopeAdmin}, "")
	stranger := auth.TokenPrincipal("other", []auth.Scope{auth.ScopeAsk}, "")
	result := &steer.ControlMessage{Type: steer.MessageResult, Payload: steer.Failure(steer.CodeForbidden, "not allowed")}
	control := func(refused bool) *hitl.Event {
		return &hitl.Event{Type: hitl.EventControl, RunID: "loop-1", Actor: "api:other", Asker: "api:ci", Control: result, Refused: refused}
	}
	for _, tc := range []struct {
		name string
		ev   *hitl.Event
		p    auth.Principal
		want bool
	}{
		{"the run's owner reads its run's events", control(false), owner, true},
		{"a stranger does not", control(false), stranger, false},
		{"a person who sees every question does", control(false), person, true},
		{"a refused request: not its run's owner", control(true), owner, false},
		{"a refused request: not a person who sees every question", control(true), person, false},
		{"a refused request: its sender", control(true), stranger, true},
		{"a refused request: admins", control(true), admin, true},
		{"the audit trail: admins", &hitl.Event{Type: hitl.EventRefused, Asker: "api:ci"}, admin, true},
		{"the audit trail: not the asker", &hitl.Event{Type: hitl.EventRefused, Asker: "api:ci"}, owner, false},
		{"a control-only token sees no question's events", control(false), ops, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.ev.VisibleTo(tc.p); got != tc.want {
				t.Fatalf("VisibleTo(%s) = %v, want %v", tc.p.ID, got, tc.want)
			}
		})
	}
}

// TestControlRecordNames: a request id names one request.
func TestControlRecordNames(t *testing.T) {
	pause := steer.ControlMessage{RequestID: "r", Command: steer.CommandPause, Target: steer.ControlTarget{RunID: "run-1"}}
	rec := hitl.ControlRecord{RequestID: "r", RunID: "run-1", Command: steer.CommandPause, Request: pause.Digest()}
	retry := pause
	retry.Timestamp = "2026-11-28T09:00:00Z"
	other := pause
	other.Target.RunID = "run-2"
	cancel := pause
	cancel.Command = steer.CommandCancel
	redirect := pause
	redirect.Payload.Instruction = "write the tests first"
	old := hitl.ControlRecord{RequestID: "r", RunID: "run-1", Command: steer.CommandPause} // an older hitl's: no digest
	for _, tc := range []struct {
		name string
		rec  hitl.ControlRecord
		req  steer.ControlMessage
		want bool
	}{
		{"a retry (another timestamp)", rec, retry, true},
		{"another run", rec, other, false},
		{"another command", rec, cancel, false},
		{"other arguments", rec, redirect, false},
		{"an older record: the same command and run", old, retry, true},
		{"an older record: another run", old, other, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.rec.Names(tc.req); got != tc.want {
				t.Fatalf("Names = %v, want %v", got, tc.want)
			}
		})
	}
}
