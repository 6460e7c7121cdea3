package hitl

import (
	"time"

	"github.com/hitlbot/hitl/steer"
)

// Run is a run's record (a job and a run are one id space: docs/protocol.md#where-the-names-come-from),
// stored when its first question arrives and kept current by the store in
// the same transaction as every change of its questions, so that reading
// a run costs one record, however many questions it holds.
type Run struct {
	ID string `json:"runId"`
	// Version grows with every change of the record: WaitRun waits for it
	// to pass a version the caller saw.
	Version   uint64    `json:"version"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	// Asker is the principal that started the run (its first question,
	// checkpoint or STATE): its owner (Access.AuthorizeRun).
	Asker string `json:"asker,omitempty"`
	// AskerUser is the Slack user Asker speaks for, if any: the same
	// person owns the run.
	AskerUser string `json:"askerUser,omitempty"`
	// Questions counts the run's stored questions; Pending those pending.
	Questions int `json:"questions"`
	Pending   int `json:"pending"`
	// PendingInput and PendingApproval count the pending questions the run
	// waits on (non_blocking ones it does not wait on).
	PendingInput    int `json:"pendingInput"`
	PendingApproval int `json:"pendingApproval"`
	// WaitingOn is the oldest pending question the run waits on.
	WaitingOn *PendingQuestion `json:"waitingOn,omitempty"`
	// Control is what controllers decided and the agent reported.
	Control steer.RunControl `json:"control"`
}

// Status is the run's status as docs/protocol.md#run-state-and-the-interaction-threshold shows it (status): done, aborted
// or cancelled once it ended, paused while paused, waiting for approval
// while an approval it waits on is pending, waiting for input while
// another question it waits on is, running otherwise.
func (r *Run) Status() steer.RunStatus {
	switch {
	case r == nil:
		return steer.RunRunning
	case r.Control.Status.Ended(), r.Control.Status == steer.RunPaused:
		return r.Control.Status
	case r.PendingApproval > 0:
		return steer.RunWaitingForApproval
	case r.PendingInput > 0:
		return steer.RunWaitingForInput
	}
	return steer.RunRunning
}

// Open reports whether the run is not finished: an agent reports on it
// and it has not ended (running or paused), or it has not ended and waits
// on a person (a question or approval it waits on is pending). Run lists
// (hitl runs, the web's runs, /hitl runs) show the open runs; stores index
// them (Store.Runs with active set).
func (r *Run) Open() bool {
	if r == nil || r.Control.Status.Ended() {
		return false
	}
	return r.Control.Status.Active() || r.PendingInput+r.PendingApproval > 0
}

// Held reports whether the run's record must be kept: it holds questions,
// or an agent reports on it (active). Retention forgets a run that is not
// held once its last question is pruned, and a run that ended (so is not
// held once its questions are gone) once its end is older than retention.
func (r *Run) Held() bool { return r.Questions > 0 || r.Control.Status.Active() }

// WaitsOn reports whether q, pending, keeps its run waiting: every pending
// question but a non_blocking one.
func WaitsOn(q *Question) bool { return q != nil && q.Pending() && q.Type != NonBlocking }

// Track moves r's counters from question old (nil when q is new) to q,
// as of now. It does not choose WaitingOn when the question it names
// stops waiting: the store does, from its index of the run's pending
// questions (NextWaitingOn).
func (r *Run) Track(old, q *Question, now time.Time) {
	if r.CreatedAt.IsZero() {
		r.ID, r.CreatedAt = q.RunID, now
	}
	if r.Asker == "" {
		r.Asker, r.AskerUser = q.Asker, q.AskerUser
	}
	r.UpdatedAt = now
	r.count(old, -1)
	r.count(q, +1)
	if old == nil {
		r.Questions++
	}
	if WaitsOn(q) && r.WaitingOn == nil {
		r.WaitingOn = &PendingQuestion{QuestionID: q.ID, Question: q.Question, Timestamp: q.CreatedAt}
	}
	if !WaitsOn(q) && r.WaitingOn != nil && r.WaitingOn.QuestionID == q.ID {
		r.WaitingOn = nil // the store picks the next one
	}
}

func (r *Run) count(q *Question, d int) {
	if q == nil || !q.Pending() {
		return
	}
	r.Pending += d
	switch {
	case q.Type == Approval:
		r.PendingApproval += d
	case q.Type != NonBlocking:
		r.PendingInput += d
	}
}

// Forget removes a settled question deleted by retention from the counts.
func (r *Run) Forget(q *Question) {
	r.count(q, -1)
	r.Questions--
	if r.WaitingOn != nil && r.WaitingOn.QuestionID == q.ID {
		r.WaitingOn = nil
	}
}

// PendingQuestion is the run-state protocol's pendingQuestion (docs/protocol.md#run-state-and-the-interaction-threshold).
type PendingQuestion struct {
	QuestionID string    `json:"questionId"`
	Question   string    `json:"question"`
	Timestamp  time.Time `json:"timestamp"`
}
