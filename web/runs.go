package web

import (
	"net/http"
	"strings"

	"github.com/google/uuid"
	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
)

type runsView struct {
	Runs []*hitl.Run
	// Handles are the runs' handles (runhandle.Of), what hitl runs shows.
	Handles map[string]string
	All     bool
	Next    string
	// Rules and Audit are for admins: learned rules (to revoke) and the
	// latest refusals and policy decisions.
	Admin bool
	Rules []*hitl.LearnedRule
	Audit []*hitl.Event
}

// auditShown is how many of the log's latest events the audit section
// reads to find refusals and policy decisions.
const auditShown = 500

// handleRuns serves GET /runs: active runs (all with ?all=1).
func (h *Handler) handleRuns(w http.ResponseWriter, r *http.Request, s *signIn) {
	ctx := r.Context()
	all := r.URL.Query().Get("all") != ""
	pg, err := h.svc.Runs.Runs(ctx, !all, PageSize, r.URL.Query().Get("cursor"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v := &runsView{Runs: pg.Runs, Handles: pg.Handles, All: all, Next: pg.NextCursor, Admin: h.access.Authorize(s.p, auth.ActionAudit, nil) == nil}
	if v.Admin {
		rules, err := h.svc.Policies.LearnedRules(ctx, hitl.LearnedRuleFilter{Limit: PageSize})
		if err != nil {
			h.fail(w, r, err)
			return
		}
		v.Rules = rules.Rules
		if v.Audit, err = h.audit(r); err != nil {
			h.fail(w, r, err)
			return
		}
	}
	h.render(w, r, http.StatusOK, "runs", &page{Title: "Runs", Data: v})
}

// audit reads the latest refusals and policy decisions, newest first.
func (h *Handler) audit(r *http.Request) ([]*hitl.Event, error) {
	last, err := h.svc.Log.LastSeq(r.Context())
	if err != nil {
		return nil, err
	}
	after := uint64(0)
	if last > auditShown {
		after = last - auditShown
	}
	evs, _, err := h.svc.Log.Events(r.Context(), after, auditShown)
	if err != nil {
		return nil, err
	}
	var out []*hitl.Event
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Audit() {
			out = append(out, evs[i])
		}
	}
	return out, nil
}

type runView struct {
	Run   *hitl.Run
	State *hitl.RunState
	Steer bool
	// Offered says the run in its state can carry out some command
	// (hitl.Run.Offers).
	Offered bool
	Control []steer.ControlMessage
	// HistoryHidden says why the questions are not shown.
	HistoryHidden string
	// Live says the person sees the run's messages as they come.
	Live bool
}

// handleRun serves GET /runs/{id}: the run's status, iteration, model,
// the question it waits on, its interaction history and the steering
// controls.
func (h *Handler) handleRun(w http.ResponseWriter, r *http.Request, s *signIn) {
	v, err := h.run(r, s, r.PathValue("id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, "run", &page{Title: "Run " + v.Run.ID, RunID: v.Run.ID, Data: v})
}

func (h *Handler) run(r *http.Request, s *signIn, id string) (*runView, error) {
	rec, err := h.svc.Runs.RunRecord(r.Context(), id)
	if err != nil {
		return nil, err
	}
	v := &runView{Run: rec, Steer: h.access.Authorize(s.p, auth.ActionSteer, nil) == nil,
		// The root says who sees a run's steering and the agent's status
		// reports on the log.
		Live: (&hitl.Event{Type: hitl.EventControl, RunID: id, Asker: rec.Asker}).VisibleTo(s.p)}
	for _, c := range []steer.Command{steer.CommandPause, steer.CommandResume, steer.CommandCancel, steer.CommandEscalate, steer.CommandRedirect} {
		v.Offered = v.Offered || rec.Offers(c)
	}
	// The questions are the root's to show: those who steer but do not
	// answer see the run, not what its agent asked.
	switch v.State, err = h.svc.Runs.RunState(r.Context(), id); {
	case fault.Code(err) == fault.EFORBIDDEN:
		v.HistoryHidden = fault.Message(err)
	case err != nil:
		return nil, err
	}
	return v, nil
}

// handleControl serves POST /runs/{id}/control: one of docs/protocol.md#steering's
// REQUESTs ("Pause", "Resume", "Cancel run", "Escalate" with a model,
// "Redirect" with an instruction), answered with its ACK and RESULT.
func (h *Handler) handleControl(w http.ResponseWriter, r *http.Request, s *signIn) {
	id := r.PathValue("id")
	cmd := steer.Command(r.PostForm.Get("command"))
	p := steer.ControlPayload{Model: strings.TrimSpace(r.PostForm.Get("model")), Instruction: strings.TrimSpace(r.PostForm.Get("instruction"))}
	msgs, err := h.svc.Runs.Control(r.Context(), steer.NewRequest(uuid.NewString(), cmd, id, h.cfg.Clock.Now(), p))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if fetched(r) {
		writeJSON(w, http.StatusOK, map[string]any{"messages": msgs})
		return
	}
	h.render(w, r, http.StatusOK, "result", &page{Title: "Run " + id, RunID: id, Data: resultView{Control: msgs, RunID: id}})
}

// handleRevoke serves POST /rules/{id}/revoke.
func (h *Handler) handleRevoke(w http.ResponseWriter, r *http.Request, s *signIn) {
	gone, err := h.svc.Policies.RevokeRule(r.Context(), r.PathValue("id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	msg := "Revoked " + gone.Name() + "."
	if fetched(r) {
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "message": msg})
		return
	}
	h.render(w, r, http.StatusOK, "result", &page{Title: "Revoked", Data: resultView{Message: msg}})
}
