package agent

import (
	"context"
	"net/http"

	"github.com/hitlbot/hitl"
)

// reassignRequest is POST /api/questions/{id}/reassign's body.
type reassignRequest struct {
	To []string `json:"to"`
}

// handleReassign serves POST /api/questions/{id}/reassign {"to": [...]}:
// the question's new assignees replace the old ones.
func (s *Server) handleReassign(w http.ResponseWriter, r *http.Request) {
	var req reassignRequest
	if err := decodeBody(w, r, s.cfg.MaxBodyBytes, &req, true); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	q, err := s.svc.Reassign(r.Context(), r.PathValue("id"), req.To)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, successResponse{Success: true, Question: q})
}

var _ hitl.ReassignService = (*Client)(nil)

// Reassign implements service.ReassignService over POST
// /api/questions/{id}/reassign.
func (c *Client) Reassign(ctx context.Context, id string, to []string) (*hitl.Question, error) {
	seg, err := segment("question id", id)
	if err != nil {
		return nil, err
	}
	var resp successResponse
	if err := c.do(ctx, http.MethodPost, "/api/questions/"+seg+"/reassign", nil, reassignRequest{To: to}, &resp); err != nil {
		return nil, err
	}
	return resp.Question, nil
}
