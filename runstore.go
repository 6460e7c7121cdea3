package hitl

import (
	"context"
	"time"

	"github.com/hitlbot/hitl/steer"
)

// RunStore keeps the runs' records and the control requests that steer
// them (ControlRecord). A run's update is written with its events in one
// commit.
type RunStore interface {
	// UpdateRun loads run id (nil when there is none), calls fn on it and
	// writes what fn returns, atomically: the run (when not nil), its
	// events in order (each stamped with the run's status and asker) and
	// the completed control request. fn may be called more than once and
	// must depend only on its argument; its error aborts the update and
	// is returned. It returns the run as stored.
	UpdateRun(ctx context.Context, id string, fn func(run *Run) (RunUpdate, error)) (*Run, error)

	// SteerRun is UpdateRun for the control request key names (loop:control,
	// docs/protocol.md#steering; a request id held per principal: ControlKeyOf):
	// fn also gets the record stored under key (nil when there is none),
	// and what it returns is written in the same commit: the run, the
	// events in order (the ACK, the RESULT, the loop event it causes) and
	// the request's record, stored under its Key. Calls for the same key
	// are serialised, whatever run they name: the second sees what the
	// first wrote. When fn returns nothing to write, nothing is committed.
	SteerRun(ctx context.Context, id string, key ControlKey, fn func(run *Run, prior *ControlRecord) (RunUpdate, error)) (*Run, error)

	// Run returns run id's record, or ENOTFOUND.
	Run(ctx context.Context, id string) (*Run, error)

	// Runs returns a page of runs in id order: only open ones (Run.Open:
	// running, paused, or waiting on a person) when active is set.
	Runs(ctx context.Context, active bool, limit int, cursor string) (RunPage, error)

	// RunsByPrefix returns up to limit runs whose id starts with prefix
	// (the run whose id is prefix included), in id order, ended ones too.
	// It reads by the runs' key: its cost grows with the runs returned,
	// not with the runs stored.
	RunsByPrefix(ctx context.Context, prefix string, limit int) ([]*Run, error)
}

// RunUpdate is what an UpdateRun function writes.
type RunUpdate struct {
	Run     *Run           // the run to store; nil leaves it as it is
	Events  []*Event       // appended in order
	Control *ControlRecord // a control request's record, with its RESULT
}

// ControlRecord is the durable record of a control request, written with
// its RESULT in the commit that carries the command out (Service.Control).
// It is the dedup cache of the steering protocol (a retry within five minutes gets the
// cached RESULT), held per principal (Key), and it survives restarts. A record without a Result was
// written by an older hitl, which recorded receipt and result apart: the
// request was in flight then.
type ControlRecord struct {
	RequestID string                `json:"requestId"`
	RunID     string                `json:"runId"`
	Command   steer.Command         `json:"command"`
	By        string                `json:"by"`
	At        time.Time             `json:"at"`
	Result    *steer.ControlMessage `json:"result,omitempty"`
	// Request is what the request asked (steer.ControlMessage.Digest);
	// empty in a record an older hitl wrote.
	Request string `json:"request,omitempty"`
}

// Names reports whether req is the request the record is of: the same
// command, target and arguments (a retry), not another request sent with
// the same id. A record an older hitl wrote, without the digest, is
// compared by command and run.
func (r *ControlRecord) Names(req steer.ControlMessage) bool {
	if r.Request != "" {
		return r.Request == req.Digest()
	}
	return r.Command == req.Command && r.RunID == req.Target.RunID
}

// Key is the key the record is held under: its request id, for the
// principal that sent it (ControlKeyOf).
func (r *ControlRecord) Key() ControlKey { return ControlKeyOf(r.By, r.RequestID) }

// ControlKey names a control request's record. Seed 000's request ids
// deduplicate per principal: another principal's request with the same
// id is a new request, which never sees the first one's RESULT.
type ControlKey struct {
	Principal string // the person who sent it (one for a tokenless server's local principals)
	RequestID string
}

// RunPage is a page of runs.
type RunPage struct {
	Runs       []*Run `json:"runs"`
	NextCursor string `json:"nextCursor,omitempty"`
	// Handles are the runs' handles by id (RunHandle): set by the
	// service's list, never stored.
	Handles map[string]string `json:"handles,omitempty"`
}

// ControlKeyOf is the key a control request id sent by principal is held
// under (the steering protocol's dedup cache): the principal's own, so that another
// principal's request with the same id is a new request, never answered
// with the first one's RESULT (nor refused with its refusal). The local
// principals of a tokenless server are one principal.
func ControlKeyOf(principal, requestID string) ControlKey {
	return ControlKey{Principal: PersonOf(principal), RequestID: requestID}
}
