package slackfake

import (
	"encoding/json"
)

// A view_submission's ack may carry a response_action: "update" replaces
// the submitted modal with the ack's view, "push" stacks a new one on it,
// "errors" shows messages under inputs and "clear" closes every modal.
// Slack checks an updated or pushed view as views.update does; so does the
// fake, recording a violation as a rejection of the method
// "view_submission.response_action" (failing the test under
// FailOnReject), and an accepted update becomes the view's current state
// (OpenedViews, LastView, a later ViewSubmission).

// applyResponseAction applies the ack of a view_submission payload.
func (s *Server) applyResponseAction(payload Payload, ack Ack) {
	if len(ack.Payload) == 0 {
		return
	}
	var resp struct {
		Action string          `json:"response_action"`
		View   json.RawMessage `json:"view"`
	}
	if err := json.Unmarshal(ack.Payload, &resp); err != nil || (resp.Action != "update" && resp.Action != "push") {
		return
	}
	viewID := ""
	if v, ok := payload["view"].(map[string]any); ok {
		viewID, _ = v["id"].(string)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	call := Call{Method: "view_submission.response_action", Body: ack.Payload, Status: 200, OK: true, At: s.cfg.clock.Now()}
	msgs := validateView(resp.View, "modal")
	if len(resp.View) == 0 {
		msgs = append(msgs, "missing required field: view [json-pointer:/view]")
	}
	if len(msgs) > 0 {
		call.OK, call.Error = false, "invalid_arguments"
	}
	if failing := s.recordLocked(call, msgs); failing != nil {
		s.t.Errorf("slackfake: rejected %s", failing)
	}
	if !call.OK {
		return
	}
	var spec map[string]any
	_ = json.Unmarshal(resp.View, &spec)
	v, ok := s.views[viewID]
	switch {
	case resp.Action == "update" && ok:
		v.spec, v.hash = spec, s.newHashLocked()
		v.updates++
	case resp.Action == "push" && ok:
		nv := s.newViewLocked(v.user, spec)
		nv.rootID, nv.previousID = v.rootID, v.id
		s.viewOrder = append(s.viewOrder, nv.id)
	}
}
