package api

import (
	"net/http"

	"github.com/hitlbot/hitl/api/wire"
)

// handleReassign serves POST /api/questions/{id}/reassign {"to": [...]}:
// the question's new assignees replace the old ones.
func (s *Server) handleReassign(w http.ResponseWriter, r *http.Request) {
	var req wire.ReassignRequest
	if err := decodeBody(w, r, s.cfg.MaxBodyBytes, &req, true); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	q, err := s.svc.Reassign(r.Context(), r.PathValue("id"), req.To)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, wire.SuccessResponse{Success: true, Question: q})
}
