package steer

import (
	"strconv"
	"time"

	"github.com/hitlbot/hitl/fault"
)

// StateEventType is a loop:current event's kind (schema 1, docs/protocol.md#steering).
type StateEventType string

const (
	StateRunning StateEventType = "STATE"
	StateAbort   StateEventType = "ABORT"
	StateDone    StateEventType = "DONE"
)

// Abort reasons hitl itself gives.
const (
	ReasonUserCancelled = "USER_CANCELLED"
)

// StackEntry is one loop of a run's stack (the steering protocol's STATE stack, docs/protocol.md#steering).
type StackEntry struct {
	ID               string `json:"id"`
	Mode             string `json:"mode,omitempty"`
	Iter             int    `json:"iter"`
	Max              int    `json:"max,omitempty"`
	Model            string `json:"model,omitempty"`
	EscalationReason string `json:"escalation_reason,omitempty"`
}

// StateEvent is one message on loop:current: the agent's STATE, or how a
// run ended (ABORT with a reason, DONE).
type StateEvent struct {
	Schema    int            `json:"schema"`
	Event     StateEventType `json:"event"`
	RunID     string         `json:"run_id"`
	UpdatedAt string         `json:"updated_at,omitempty"`
	Reason    string         `json:"reason,omitempty"`
	Stack     []StackEntry   `json:"stack"`
	// IssueID is the issue the loop works on, when a checkpoint says so
	// (not part of a STATE on the wire; kept on the run).
	IssueID string `json:"-"`
}

// Validate checks a StateEvent an agent publishes.
func (e *StateEvent) Validate() error {
	if e.Schema != StateSchema {
		return fault.Errorf(fault.EINVALID, "schema must be 1 for loop:current, got %d", e.Schema)
	}
	switch e.Event {
	case StateRunning, StateAbort, StateDone:
	case "":
		return fault.Errorf(fault.EINVALID, "event is required: STATE, ABORT or DONE")
	default:
		return fault.Errorf(fault.EINVALID, "event %q is unknown: use STATE, ABORT or DONE", e.Event)
	}
	if err := ValidateRunID(e.RunID); err != nil {
		return fault.Errorf(fault.EINVALID, "run_id: %s", fault.Message(err))
	}
	if e.UpdatedAt != "" {
		if _, err := time.Parse(time.RFC3339, e.UpdatedAt); err != nil {
			return fault.Errorf(fault.EINVALID, "updated_at %q is not ISO 8601", e.UpdatedAt)
		}
	}
	if len(e.Reason) > MaxInstructionLen || len(e.Stack) > 16 {
		return fault.Errorf(fault.EINVALID, "reason or stack is too long")
	}
	for i, s := range e.Stack {
		if s.ID == "" {
			return fault.Errorf(fault.EINVALID, "stack[%d].id is required", i)
		}
		if s.Iter < 0 || s.Max < 0 || (s.Max > 0 && s.Iter > s.Max) {
			return fault.Errorf(fault.EINVALID, "stack[%d]: iter %d and max %d do not fit (0 ≤ iter ≤ max)", i, s.Iter, s.Max)
		}
		if len(s.Model) > MaxModelLen || len(s.Mode) > MaxModelLen || len(s.EscalationReason) > MaxInstructionLen {
			return fault.Errorf(fault.EINVALID, "stack[%d] has a field too long", i)
		}
	}
	if e.Event == StateRunning && len(e.Stack) == 0 {
		return fault.Errorf(fault.EINVALID, "a STATE needs a stack with the run's loop: [{\"id\": %q, \"iter\": N}]", e.RunID)
	}
	return nil
}

// RunStatus is a run's status: one vocabulary for the control lifecycle
// controllers and the agent move it through (docs/protocol.md#steering: running, paused,
// then done, aborted or cancelled: RunControl.Status) and for what
// docs/protocol.md#run-state-and-the-interaction-threshold shows of it (Run.Status: its lifecycle status, or,
// while it runs, waiting for input or approval).
type RunStatus string

const (
	RunRunning            RunStatus = "running"
	RunPaused             RunStatus = "paused"
	RunWaitingForInput    RunStatus = "waiting_for_input"
	RunWaitingForApproval RunStatus = "waiting_for_approval"
	RunCancelled          RunStatus = "cancelled"
	RunDone               RunStatus = "done"
	RunAborted            RunStatus = "aborted"
)

// Active reports whether a run with status s can be steered: an agent
// reported on it (a checkpoint or STATE) and it has not ended. A run that
// only asked questions has no status.
func (s RunStatus) Active() bool { return s == RunRunning || s == RunPaused }

// Ended reports whether a loop with status s is over: done, aborted or
// cancelled.
func (s RunStatus) Ended() bool { return s == RunDone || s == RunAborted || s == RunCancelled }

// RunControl is a run's control state, on its record: what controllers
// decided and what the agent last reported. It survives restarts of the
// service and of the agent (docs/protocol.md#steering).
type RunControl struct {
	Status           RunStatus `json:"status"`
	IssueID          string    `json:"issueId,omitempty"`
	Mode             string    `json:"mode,omitempty"`
	Iter             int       `json:"iter,omitempty"`
	Max              int       `json:"max,omitempty"`
	Model            string    `json:"model,omitempty"`
	EscalationReason string    `json:"escalationReason,omitempty"`
	// Escalated says a person chose Model (hitl escalate): from then on
	// the model a loop reports is the one it started with, not a change.
	Escalated   bool       `json:"escalated,omitempty"`
	Reason      string     `json:"reason,omitempty"` // why it ended (ABORT)
	LastStateAt *time.Time `json:"lastStateAt,omitempty"`
	// Next is the iteration a report made while the run was paused holds
	// the loop before (absorb): the resume lets the loop into it.
	Next int `json:"nextIter,omitempty"`
	// NewModel and Instruction wait to be handed to the agent at its next
	// checkpoint, once.
	NewModel    string `json:"newModel,omitempty"`
	Instruction string `json:"instruction,omitempty"`
	// Threshold is the run's own interaction threshold (docs/protocol.md#run-state-and-the-interaction-threshold).
	Threshold *int `json:"interactionThreshold,omitempty"`
	// PausedBy and CancelledBy name who paused (while paused) and who
	// cancelled the run.
	PausedBy    string `json:"pausedBy,omitempty"`
	CancelledBy string `json:"cancelledBy,omitempty"`
	// Session is set when the run is a coding-agent session steered
	// through its hooks.
	Session *Session `json:"session,omitempty"`
}

// Absorb takes what an agent reports in a STATE into the run's control
// state: the top loop of the stack is the run's. Two rules keep a
// person's steering from undoing itself:
//   - the iteration is the one the loop is let into: a report made while
//     the run is paused holds the loop before the iteration it names, so
//     the run stays at the iteration it was paused at (what the pause's
//     RESULT said) until it is resumed and the report goes through;
//   - the model a loop reports is the model it starts with: once a person
//     escalated, the run keeps the person's model whatever the loop reports
//     (a shell loop passes the same --model at every checkpoint).
func (c *RunControl) Absorb(e *StateEvent, now time.Time) {
	c.LastStateAt = &now
	if len(e.Stack) == 0 {
		return
	}
	top := e.Stack[0]
	for _, s := range e.Stack {
		if s.ID == e.RunID {
			top = s
		}
	}
	if c.Status != RunPaused {
		c.Iter, c.Next = top.Iter, 0
	} else {
		c.Next = top.Iter
	}
	if top.Max > 0 {
		c.Max = top.Max
	}
	if e.IssueID != "" {
		c.IssueID = e.IssueID
	}
	if top.Mode != "" {
		c.Mode = top.Mode
	}
	if top.Model != "" && !c.Escalated {
		c.Model = top.Model
	}
	if top.EscalationReason != "" {
		c.EscalationReason = top.EscalationReason
	}
}

// LetIn lets a resumed loop into the iteration its report held it before
// (absorb), when it reported one while paused: the report goes through
// with the resume.
func (c *RunControl) LetIn() {
	if c.Next > 0 {
		c.Iter, c.Next = c.Next, 0
	}
}

// Iteration is where a run is, as every edge names it: "4 of 10", "4"
// (no planned count), or "" before the loop reported an iteration.
func (c RunControl) Iteration() string {
	switch {
	case c.Iter <= 0:
		return ""
	case c.Max > 0:
		return strconv.Itoa(c.Iter) + " of " + strconv.Itoa(c.Max)
	}
	return strconv.Itoa(c.Iter)
}
