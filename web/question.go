package web

import (
	"net/http"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
)

type questionView struct {
	Q *hitl.Question
	// Answerable says the question waits on the person: the page offers
	// the inputs.
	Answerable bool
	Run        *hitl.RunState
	Record     *hitl.Run
	Now        time.Time
	URL        string
	// Handle is the run as people read it (runHandles).
	Handle string
}

// recentActivity is how many of a run's interactions a question page
// shows.
const recentActivity = 10

// handleQuestion serves GET /q/{id}: everything a person needs to
// decide, and after settlement who decided what and when.
func (h *Handler) handleQuestion(w http.ResponseWriter, r *http.Request, s *signIn) {
	q, err := h.svc.Questions.Question(r.Context(), r.PathValue("id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v := &questionView{Q: q, Answerable: h.access.InInbox(s.p, q, false), Now: h.cfg.Clock.Now(), URL: QuestionURL(h.cfg.BaseURL, q.ID),
		Handle: h.runHandles(r.Context(), q.RunID)[q.RunID]}
	if st, err := h.svc.Runs.RunState(r.Context(), q.RunID); err == nil {
		if n := len(st.InteractionHistory); n > recentActivity {
			st.InteractionHistory = st.InteractionHistory[n-recentActivity:]
		}
		v.Run = st
		v.Record, _ = h.svc.Runs.RunRecord(r.Context(), q.RunID)
	} else if c := fault.Code(err); c != fault.ENOTFOUND && c != fault.EFORBIDDEN {
		h.fail(w, r, err)
		return
	}
	waiting := 0
	if v.Answerable {
		waiting = 1
	}
	h.render(w, r, http.StatusOK, "question", &page{Title: "Question " + q.ID, Waiting: waiting, RunID: q.RunID, Data: v})
}

// QuestionURL is the stable link to question id on the web inbox at
// base (web.url): what Slack messages and notifications can carry.
func QuestionURL(base, id string) string { return base + "/q/" + id }
