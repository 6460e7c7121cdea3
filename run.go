package hitl

import (
	"time"

	"github.com/hitlbot/hitl/steer"
)

// Interaction is one entry of the run-state protocol's interactionHistory (docs/protocol.md#run-state-and-the-interaction-threshold).
type Interaction struct {
	QuestionID string    `json:"questionId"`
	Question   string    `json:"question"`
	Answer     string    `json:"answer"`
	Status     Status    `json:"status"`
	By         string    `json:"by,omitempty"`
	Timestamp  time.Time `json:"timestamp"`
	// Operation and Parts are what an approval would have let the agent
	// do (the exact command or path), as people saw it when they decided.
	Operation *Operation     `json:"operation,omitempty"`
	Parts     []DecisionPart `json:"parts,omitempty"`
}

// MaxHistory bounds the interaction history a run state carries: the
// most recent interactions (GET /api/jobs/{id}/questions pages through
// all of them).
const MaxHistory = 100

// RunState is what a run looks like to a person: its status, the question it
// waits on, and its recent history of questions and answers, oldest first.
type RunState struct {
	RunID              string           `json:"runId"`
	Status             steer.RunStatus  `json:"phase"`
	PendingQuestion    *PendingQuestion `json:"pendingQuestion,omitempty"`
	InteractionHistory []Interaction    `json:"interactionHistory"`
	// Questions and Pending count the run's questions.
	Questions int `json:"questions"`
	Pending   int `json:"pending"`
}

// NewRunState is the state of run, with its history from recent, its most
// recent questions, newest first.
func NewRunState(run *Run, recent []*Question) *RunState {
	st := &RunState{RunID: run.ID, Status: run.Status(), PendingQuestion: run.WaitingOn,
		InteractionHistory: []Interaction{}, Questions: run.Questions, Pending: run.Pending}
	for i := len(recent) - 1; i >= 0; i-- {
		q := recent[i]
		if q.Pending() {
			continue
		}
		in := Interaction{QuestionID: q.ID, Question: q.Question, Status: q.Status, By: q.RespondedBy, Operation: q.Operation, Parts: q.Parts}
		if r := q.Redacted().Response; r != nil {
			in.Answer = r.String()
			if r.Text != "" {
				in.Answer += " (" + r.Text + ")"
			}
		}
		if q.RespondedAt != nil {
			in.Timestamp = *q.RespondedAt
		}
		st.InteractionHistory = append(st.InteractionHistory, in)
	}
	return st
}
