package api

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/api/wire"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
)

// handleAsk serves POST /api/jobs/{id}/questions: 201 with the new
// question, or 200 and created:false when the idempotency key matched.
func (s *Server) handleAsk(w http.ResponseWriter, r *http.Request) {
	runID := r.PathValue("id")
	if err := steer.ValidateRunID(runID); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	var n hitl.NewQuestion
	if err := decodeBody(w, r, s.cfg.MaxBodyBytes, &n, true); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	q, created, err := s.svc.Create(r.Context(), runID, n)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	resp := wire.AskResponse{QuestionID: q.ID, TimeoutAt: q.TimeoutAt, Status: q.Status, Created: created, Question: q}
	if q.Type == hitl.NonBlocking {
		resp.DefaultResponse = q.DefaultResponse
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeJSON(w, status, resp)
}

// handleJobQuestions serves GET /api/jobs/{id}/questions.
func (s *Server) handleRunQuestions(w http.ResponseWriter, r *http.Request) {
	runID := r.PathValue("id")
	if err := steer.ValidateRunID(runID); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	query := r.URL.Query()
	query.Del("jobId")
	f, err := parseFilter(query)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	f.RunID = runID
	s.listQuestions(w, r, f)
}

// handleQuestions serves GET /api/questions?status=&type=&jobId=&limit=&order=&cursor=.
func (s *Server) handleQuestions(w http.ResponseWriter, r *http.Request) {
	f, err := parseFilter(r.URL.Query())
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	s.listQuestions(w, r, f)
}

// handlePending serves GET /api/questions/pending?type=&jobId= (docs/protocol.md#questions;
// the questions API's workspaceId and projectId are accepted and ignored).
func (s *Server) handlePending(w http.ResponseWriter, r *http.Request) {
	query := r.URL.Query()
	query.Del("status")
	f, err := parseFilter(query)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	f.Status = hitl.StatusPending
	s.listQuestions(w, r, f)
}

func (s *Server) listQuestions(w http.ResponseWriter, r *http.Request, f hitl.QuestionFilter) {
	page, err := s.svc.QuestionPage(r.Context(), f)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	if page.Questions == nil {
		page.Questions = []*hitl.Question{}
	}
	writeJSON(w, http.StatusOK, wire.QuestionsResponse(page))
}

// parseFilter reads status, type, jobId, limit (default 100, at most
// 1000), order (created, the default, or deadline: pending questions,
// soonest deadline first) and cursor from a query.
func parseFilter(query url.Values) (hitl.QuestionFilter, error) {
	var f hitl.QuestionFilter
	switch st := hitl.Status(query.Get("status")); st {
	case "", hitl.StatusPending, hitl.StatusAnswered, hitl.StatusTimeout, hitl.StatusCancelled:
		f.Status = st
	default:
		return f, fault.Errorf(fault.EINVALID, "status %q is invalid: use pending, answered, timeout or cancelled", st)
	}
	f.Type = hitl.QuestionType(query.Get("type"))
	if f.Type != "" && !slices.Contains(hitl.QuestionTypes, f.Type) {
		return f, fault.Errorf(fault.EINVALID, "type %q is invalid: use blocking, non_blocking, approval or error_recovery", f.Type)
	}
	if run := query.Get("jobId"); run != "" {
		if err := steer.ValidateRunID(run); err != nil {
			return f, err
		}
		f.RunID = run
	}
	var err error
	if f.Limit, err = parseLimit(query.Get("limit")); err != nil {
		return f, err
	}
	if err := f.OrderBy(hitl.ListOrder(query.Get("order"))); err != nil {
		return f, err
	}
	f.Cursor = query.Get("cursor")
	return f, nil
}

// parseLimit reads ?limit= of a list: 0 (the default page) when it is
// empty, else a whole number from 1 to MaxListLimit.
func parseLimit(v string) (int, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > wire.MaxListLimit {
		return 0, fault.Errorf(fault.EINVALID, "limit must be a whole number from 1 to %d", wire.MaxListLimit)
	}
	return n, nil
}

// handleRun serves GET /api/runs/{id}: the run's record.
func (s *Server) handleRun(w http.ResponseWriter, r *http.Request) {
	wait, err := s.parseWait(r.URL.Query().Get("wait"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	if wait > 0 && s.runs != nil {
		s.handleRunWait(w, r, wait)
		return
	}
	if !s.serves(w, r, s.runs != nil, "runs") {
		return
	}
	run, err := s.runs.RunRecord(r.Context(), r.PathValue("id"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, run)
}

// handleRunState serves GET /api/jobs/{id}: the run's state (docs/protocol.md#run-state-and-the-interaction-threshold).
func (s *Server) handleRunState(w http.ResponseWriter, r *http.Request) {
	if !s.serves(w, r, s.runs != nil, "runs") {
		return
	}
	st, err := s.runs.RunState(r.Context(), r.PathValue("id"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}
