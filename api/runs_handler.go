package api

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/hitlbot/hitl/api/wire"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
)

// handleControl serves POST /api/topics/loop:control: a schema-0 REQUEST
// in, {"messages": [ACK, RESULT]} out (HTTP 200: the protocol's outcome is
// the RESULT, success or failure). A malformed request is answered with
// a bad_request RESULT alone, never an ACK. ?wait bounds the call; the
// RESULT is normally committed well within it.
func (s *Server) handleControl(w http.ResponseWriter, r *http.Request) {
	if !s.serves(w, r, s.runs != nil, "steering") {
		return
	}
	wait, err := s.parseWait(r.URL.Query().Get("wait"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	if wait == 0 {
		wait = 10 * time.Second
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
	if err != nil {
		writeError(w, r, s.log, bodyError(err, s.cfg.MaxBodyBytes))
		return
	}
	req, err := parseControlRequest(body)
	ctx, cancel := context.WithTimeout(r.Context(), wait)
	defer cancel()
	var msgs []steer.ControlMessage
	if err != nil {
		req.Type = steer.MessageResult
		req.Timestamp = steer.Timestamp(s.cfg.Clock.Now())
		req.Payload = steer.ControlPayload{Status: steer.ResultFailure, Code: steer.CodeBadRequest, Message: fault.Message(err)}
		writeJSON(w, http.StatusOK, wire.ControlResponse{Messages: []steer.ControlMessage{req}})
		return
	}
	if msgs, err = s.runs.Control(ctx, req); err != nil && len(msgs) == 0 {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, wire.ControlResponse{Messages: msgs})
}

// handleCurrent serves POST /api/topics/loop:current: the agent publishes
// a schema-1 STATE, ABORT or DONE. The answer is the run's control state.
func (s *Server) handleCurrent(w http.ResponseWriter, r *http.Request) {
	if !s.serves(w, r, s.runs != nil, "steering") {
		return
	}
	var e steer.StateEvent
	if err := decodeBody(w, r, s.cfg.MaxBodyBytes, &e, true); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	cp, err := s.runs.Publish(r.Context(), e)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, cp)
}

// handleCheckpoint serves POST /api/runs/{id}/checkpoint?wait=60s: the
// loop reports its iteration and learns what to do. While the run is
// paused the service holds it (Holds.HoldWhilePaused, up to wait) and this
// answers with the state then.
func (s *Server) handleCheckpoint(w http.ResponseWriter, r *http.Request) {
	if !s.serves(w, r, s.runs != nil, "steering") {
		return
	}
	id := r.PathValue("id")
	wait, err := s.parseWait(r.URL.Query().Get("wait"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	var req wire.CheckpointRequest
	if err := decodeBody(w, r, s.cfg.MaxBodyBytes, &req, true); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	if req.Threshold != nil {
		if _, err := s.runs.SetThreshold(r.Context(), id, req.Threshold); err != nil {
			writeError(w, r, s.log, err)
			return
		}
	}
	e := steer.StateEvent{Schema: steer.StateSchema, Event: steer.StateRunning, RunID: id, IssueID: req.IssueID,
		Stack: []steer.StackEntry{{ID: id, Mode: req.Mode, Iter: req.Iter, Max: req.Max, Model: req.Model}}}
	cp, err := s.runs.Checkpoint(r.Context(), e)
	if err == nil && cp.Status == steer.RunPaused && wait > 0 && s.holds != nil {
		release, ok := s.openStream(w, r)
		if !ok {
			return
		}
		defer release()
		ctx, done := s.longPoll(w, r, wait)
		cp, err = s.holds.HoldWhilePaused(r.Context(), ctx, e, cp)
		done()
		if s.clientGone(r) {
			return
		}
		if s.closing() && (err != nil || cp.Status == steer.RunPaused) {
			// Still paused, or cut by the shutdown: the loop checks in
			// again (at another replica, or once the service is back).
			err = errClosing()
		}
	}
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, cp)
}

// handleThreshold serves POST /api/jobs/{id} with {"interactionThreshold":
// N}: the run's own threshold (null: back to the default).
func (s *Server) handleThreshold(w http.ResponseWriter, r *http.Request) {
	if !s.serves(w, r, s.runs != nil, "steering") {
		return
	}
	var req wire.ThresholdRequest
	if err := decodeBody(w, r, s.cfg.MaxBodyBytes, &req, true); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	run, err := s.runs.SetThreshold(r.Context(), r.PathValue("id"), req.InteractionThreshold)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, run)
}

// handleRuns serves GET /api/runs?all=true&limit=&cursor=: open runs
// (running, paused or waiting on a person), or every run with all=true,
// with their handles; or, with ?prefix=P, up to limit runs whose id starts
// with P, ended ones too (runhandle.Match).
func (s *Server) handleRuns(w http.ResponseWriter, r *http.Request) {
	if !s.serves(w, r, s.runs != nil, "steering") {
		return
	}
	q := r.URL.Query()
	limit, err := parseLimit(q.Get("limit"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	if prefix := q.Get("prefix"); q.Has("prefix") {
		runs, err := s.runs.RunsByPrefix(r.Context(), prefix, limit)
		if err != nil {
			writeError(w, r, s.log, err)
			return
		}
		writeJSON(w, http.StatusOK, wire.RunsResponse{Runs: runs})
		return
	}
	page, err := s.runs.Runs(r.Context(), q.Get("all") != "true", limit, q.Get("cursor"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, wire.RunsResponse(page))
}

// handleRunWait serves GET /api/runs/{id}?wait=60s&after=VERSION: the run
// once its version passed after (or the wait elapsed).
func (s *Server) handleRunWait(w http.ResponseWriter, r *http.Request, wait time.Duration) {
	after := uint64(0)
	if v := r.URL.Query().Get("after"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			writeError(w, r, s.log, fault.Errorf(fault.EINVALID, "after %q is not a run version (a whole number)", v))
			return
		}
		after = n
	}
	release, ok := s.openStream(w, r)
	if !ok {
		return
	}
	defer release()
	ctx, done := s.longPoll(w, r, wait)
	defer done()
	run, err := s.runs.WaitRun(ctx, r.PathValue("id"), after)
	if s.clientGone(r) {
		return
	}
	if err = s.unlessClosing(err); err != nil && !waitEnded(err) {
		writeError(w, r, s.log, err)
		return
	}
	if run == nil {
		writeError(w, r, s.log, errClosing())
		return
	}
	writeJSON(w, http.StatusOK, run)
}

// serves answers 503 when the server was built without what a route
// needs (steering, policies) and reports whether it may go on.
func (s *Server) serves(w http.ResponseWriter, r *http.Request, ok bool, what string) bool {
	if !ok {
		writeError(w, r, s.log, fault.Errorf(fault.EUNAVAILABLE, "%s is not served here", what))
	}
	return ok
}
