package web

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
)

// Decisions an approval's buttons post (field "decision").
const (
	decisionApprove = "approve"
	decisionMessage = "approve_message" // "Approve with message"
	decisionDeny    = "deny"
	decisionAlways  = "always" // "Approve & always"
	decisionEdited  = "edited" // approve the edited input
	decisionReply   = "reply"  // text for the agent instead of a verdict
)

// response reads an answer form for q: an approval's decision with its
// reason or message, or the value(s) the inputs hold. The root validates
// it.
func response(q *hitl.Question, form map[string][]string) (hitl.Response, error) {
	get := func(k string) string {
		if v := form[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	if q.ResponseType != hitl.ApprovalResponse {
		vals := form["value"]
		switch {
		case len(vals) == 0:
			return hitl.Response{}, fault.Errorf(fault.EINVALID, "the answer is empty")
		case q.ResponseType == hitl.ChoiceResponse && q.MultiSelect:
			return hitl.Response{Value: vals}, nil
		}
		return hitl.Response{Value: vals[0]}, nil
	}
	switch d := get("decision"); d {
	case decisionApprove:
		return hitl.Response{Value: hitl.Approve}, nil
	case decisionMessage:
		msg := strings.TrimSpace(get("message"))
		if msg == "" {
			return hitl.Response{}, fault.Errorf(fault.EINVALID, "write a message to approve with (or press Approve)")
		}
		return hitl.Response{Value: hitl.Approve, Text: msg}, nil
	case decisionDeny:
		return hitl.Response{Value: hitl.Deny, Text: strings.TrimSpace(get("reason"))}, nil
	case decisionAlways:
		return hitl.Response{Value: hitl.Approve, Always: true}, nil
	case decisionEdited:
		return q.EditedApproval(get("edited"), get("editedContent")), nil
	case decisionReply:
		return hitl.Response{Value: hitl.Reply, Text: get("reply")}, nil
	default:
		return hitl.Response{}, fault.Errorf(fault.EINVALID, "decision %q is unknown: approve, approve_message, deny, always, edited or reply", d)
	}
}

// answerResult is what a person reads after answering.
type answerResult struct {
	OK         bool   `json:"ok"`
	QuestionID string `json:"questionId"`
	Message    string `json:"message"`
	// Settled says the question no longer waits (not one approval of
	// several).
	Settled bool   `json:"settled"`
	Code    string `json:"code,omitempty"`
}

// answered says what an answer did, without ever repeating a sensitive
// value.
func answered(q *hitl.Question) answerResult {
	res := answerResult{OK: true, QuestionID: q.ID, Settled: !q.Pending()}
	switch {
	case q.Pending() && q.NeedsSeveral():
		res.Message = fmt.Sprintf("Your approval of %s is counted: %s.", q.ID, q.Tally())
	case q.Sensitive:
		res.Message = fmt.Sprintf("Answered %s. The answer is sensitive and is not shown.", q.ID)
	case q.Response.WasEdited() && q.Operation != nil && len(q.Operation.Diffs) > 0:
		res.Message = fmt.Sprintf("Approved %s with your edit. It does not run yet: the agent shows you the edited change's diff against the file and asks again.", q.ID)
	case q.Response.Replied():
		res.Message = fmt.Sprintf("Replied to %s (not approved): %s", q.ID, q.Response.Text)
	default:
		res.Message = fmt.Sprintf("Answered %s: %s.", q.ID, q.Response.String())
	}
	return res
}

// handleAnswer serves POST /q/{id}/answer.
func (h *Handler) handleAnswer(w http.ResponseWriter, r *http.Request, s *signIn) {
	id := r.PathValue("id")
	q, err := h.svc.Questions.Question(r.Context(), id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	resp, err := response(q, r.PostForm)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	got, err := h.svc.Questions.Answer(r.Context(), id, resp)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	res := answered(got)
	if fetched(r) {
		writeJSON(w, http.StatusOK, res)
		return
	}
	h.render(w, r, http.StatusOK, "result", &page{Title: "Answered", Data: resultView{Answers: []answerResult{res}}})
}

type resultView struct {
	Answers []answerResult
	// Control is a steering request's ACK and RESULT.
	Control []steer.ControlMessage
	RunID   string
	Message string
}

// handleBatch serves POST /batch ("Approve selected", "Deny selected"):
// each selected approval is answered by the root's one answer path, as if
// answered alone, with a result per approval.
func (h *Handler) handleBatch(w http.ResponseWriter, r *http.Request, s *signIn) {
	ids, err := hitl.BatchIDs(r.PostForm["id"])
	if err != nil {
		h.fail(w, r, err)
		return
	}
	resp, err := hitl.BatchResponse(r.PostForm.Get("decision"), r.PostForm.Get("reason"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	results := make([]answerResult, 0, len(ids))
	for _, id := range ids {
		got, err := h.svc.Questions.Answer(r.Context(), id, resp)
		if err != nil {
			results = append(results, answerResult{QuestionID: id, Code: fault.Code(err), Message: fault.Message(err)})
			continue
		}
		results = append(results, answered(got))
	}
	if fetched(r) {
		writeJSON(w, http.StatusOK, map[string]any{"results": results})
		return
	}
	h.render(w, r, http.StatusOK, "result", &page{Title: "Answered", Data: resultView{Answers: results}})
}
