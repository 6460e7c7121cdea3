package agent

import (
	"context"
	"net/http"

	"github.com/hitlbot/hitl"
)

// handleHook serves POST /api/runs/{id}/hook: a coding-agent session's
// hook call (hitl.SessionHook, its runId taken from the path) in, the
// hitl.HookStep it calls for out. A held call (paused) waits with
// GET /api/runs/{id}?wait=&after=VERSION and calls again.
func (s *Server) handleHook(w http.ResponseWriter, r *http.Request) {
	if !s.serves(w, r, s.runs != nil, "steering") {
		return
	}
	var h hitl.SessionHook
	if err := decodeBody(w, r, s.cfg.MaxBodyBytes, &h, true); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	if h.RunID != "" && h.RunID != r.PathValue("id") {
		writeError(w, r, s.log, hitl.Errorf(hitl.EINVALID, "runId %q is not the run of the path (%s)", h.RunID, r.PathValue("id")))
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

// Hook implements hitl.RunService: POST /api/runs/{id}/hook.
func (c *Client) Hook(ctx context.Context, h hitl.SessionHook) (hitl.HookStep, error) {
	seg, err := segment("run id", h.RunID)
	if err != nil {
		return hitl.HookStep{}, err
	}
	var step hitl.HookStep
	err = c.do(ctx, http.MethodPost, "/api/runs/"+seg+"/hook", nil, h, &step)
	return step, err
}
