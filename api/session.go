package api

import (
	"context"
	"net/http"
	"strconv"

	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
)

// handleHook serves POST /api/runs/{id}/hook: a coding-agent session's
// hook call (steer.SessionHook, its runId taken from the path) in, the
// steer.HookStep it calls for out. A held call (paused) waits with
// GET /api/runs/{id}?wait=&after=VERSION and calls again.
func (s *Server) handleHook(w http.ResponseWriter, r *http.Request) {
	if !s.serves(w, r, s.runs != nil, "steering") {
		return
	}
	var h steer.SessionHook
	if err := decodeBody(w, r, s.cfg.MaxBodyBytes, &h, true); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	if h.RunID != "" && h.RunID != r.PathValue("id") {
		writeError(w, r, s.log, fault.Errorf(fault.EINVALID, "runId %q is not the run of the path (%s)", h.RunID, r.PathValue("id")))
		return
	}
	h.RunID = r.PathValue("id")
	step, err := s.runs.Hook(r.Context(), h)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, step)
}

// handleHold serves GET /api/runs/{id}/hold?wait=60s&after=VERSION: the
// wait of a hook call the service holds (paused), answered as
// GET /api/runs/{id}?wait= is. When the hook goes away mid-wait (the agent
// killed it, or the hook's own wait ran out) the service lets go of the
// held mark the call left at VERSION, so the run no longer shows it held.
func (s *Server) handleHold(w http.ResponseWriter, r *http.Request) {
	holds := s.holds
	if !s.serves(w, r, holds != nil, "steering") {
		return
	}
	wait, err := s.parseWait(r.URL.Query().Get("wait"))
	if err == nil && wait <= 0 {
		err = fault.Errorf(fault.EINVALID, "wait is required: how long to hold (e.g. 60s)")
	}
	var after uint64
	if err == nil {
		if after, err = strconv.ParseUint(r.URL.Query().Get("after"), 10, 64); err != nil {
			err = fault.Errorf(fault.EINVALID, "after %q is not a run version (a whole number)", r.URL.Query().Get("after"))
		}
	}
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	s.handleRunWait(w, r, wait)
	if !s.clientGone(r) {
		return // answered (a closing server too): the hook reports again
	}
	if err := holds.LetGo(context.WithoutCancel(r.Context()), r.PathValue("id"), after); err != nil {
		s.log.Warn("a held hook call went away; letting go of its held mark failed", "run", r.PathValue("id"), "err", err)
	}
}
