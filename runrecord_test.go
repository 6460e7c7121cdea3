package hitl_test

import (
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
)

// TestRunStatus is the table of what a run's status shows (seeds 001 and
// 004): its lifecycle once ended or while paused, else what it waits on.
func TestRunStatus(t *testing.T) {
	rows := []struct {
		name string
		run  *hitl.Run
		want steer.RunStatus
	}{
		{"no record", nil, steer.RunRunning},
		{"only asked, nothing pending", &hitl.Run{}, steer.RunRunning},
		{"waiting on a question", &hitl.Run{PendingInput: 1}, steer.RunWaitingForInput},
		{"an approval outranks a question", &hitl.Run{PendingInput: 1, PendingApproval: 1}, steer.RunWaitingForApproval},
		{"non_blocking questions do not make it wait", &hitl.Run{Pending: 2}, steer.RunRunning},
		{"paused outranks waiting", &hitl.Run{PendingApproval: 1, Control: steer.RunControl{Status: steer.RunPaused}}, steer.RunPaused},
		{"running with a checkpoint", &hitl.Run{Control: steer.RunControl{Status: steer.RunRunning}}, steer.RunRunning},
		{"done", &hitl.Run{Control: steer.RunControl{Status: steer.RunDone}}, steer.RunDone},
		{"aborted", &hitl.Run{Control: steer.RunControl{Status: steer.RunAborted}}, steer.RunAborted},
		{"cancelled, even with a question left", &hitl.Run{PendingInput: 1, Control: steer.RunControl{Status: steer.RunCancelled}}, steer.RunCancelled},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			assert.Equal(t, r.want, r.run.Status())
			assert.False(t, r.want.Active() && r.run != nil && r.run.Control.Status.Ended(), "an ended run is never active")
		})
	}
}

// TestRunHeld is the table of which run records retention keeps: those
// that hold questions or that an agent reports on.
func TestRunHeld(t *testing.T) {
	for _, r := range []struct {
		name string
		run  hitl.Run
		want bool
	}{
		{"questions only, all pruned", hitl.Run{}, false},
		{"a question left", hitl.Run{Questions: 1}, true},
		{"running, no question", hitl.Run{Control: steer.RunControl{Status: steer.RunRunning}}, true},
		{"paused, no question", hitl.Run{Control: steer.RunControl{Status: steer.RunPaused}}, true},
		{"done, no question", hitl.Run{Control: steer.RunControl{Status: steer.RunDone}}, false},
		{"cancelled, a question left", hitl.Run{Questions: 2, Control: steer.RunControl{Status: steer.RunCancelled}}, true},
	} {
		assert.Equal(t, r.want, r.run.Held(), r.name)
	}
}
