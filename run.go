package hitl

import "time"

// RunPhase is seed 004's phase of a run (a job in seed 001), derived from
// its questions.
type RunPhase string

const (
	PhaseRunning            RunPhase = "running"
	PhaseWaitingForInput    RunPhase = "waiting_for_input"
	PhaseWaitingForApproval RunPhase = "waiting_for_approval"
)

// PendingQuestion is seed 004's pendingQuestion.
type PendingQuestion struct {
	QuestionID string    `json:"questionId"`
	Question   string    `json:"question"`
	Timestamp  time.Time `json:"timestamp"`
}

// Interaction is one entry of seed 004's interactionHistory.
type Interaction struct {
	QuestionID string    `json:"questionId"`
	Question   string    `json:"question"`
	Answer     string    `json:"answer"`
	Status     Status    `json:"status"`
	By         string    `json:"by,omitempty"`
	Timestamp  time.Time `json:"timestamp"`
}

// RunState is what a run looks like to a person: its phase, the question it
// waits on, and its history of questions and answers.
type RunState struct {
	RunID              string           `json:"runId"`
	Phase              RunPhase         `json:"phase"`
	PendingQuestion    *PendingQuestion `json:"pendingQuestion,omitempty"`
	InteractionHistory []Interaction    `json:"interactionHistory"`
}

// NewRunState derives the state of run from its questions, oldest first.
func NewRunState(runID string, qs []*Question) *RunState {
	st := &RunState{RunID: runID, Phase: PhaseRunning, InteractionHistory: []Interaction{}}
	for _, q := range qs {
		if q.Pending() {
			if q.Type == NonBlocking {
				continue
			}
			if st.PendingQuestion == nil {
				st.PendingQuestion = &PendingQuestion{QuestionID: q.ID, Question: q.Question, Timestamp: q.CreatedAt}
			}
			if q.Type == Approval {
				st.Phase = PhaseWaitingForApproval
			} else if st.Phase == PhaseRunning {
				st.Phase = PhaseWaitingForInput
			}
			continue
		}
		in := Interaction{QuestionID: q.ID, Question: q.Question, Status: q.Status, By: q.RespondedBy}
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
