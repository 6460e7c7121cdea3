package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/hitlbot/hitl"
)

// streamWriteTimeout bounds one write to a page's event stream: a page
// that stops reading is dropped.
const streamWriteTimeout = 30 * time.Second

// pageEvent is what a page's script gets for one event of the log it may
// see: enough to take a settled question off the page (who and when), to
// notify of a new one in the person's inbox, and to show a run's ACK,
// RESULT and loop:current messages. Text is escaped by the script
// (textContent), never parsed as markup.
type pageEvent struct {
	Seq        uint64               `json:"seq"`
	Type       hitl.EventType       `json:"type"`
	QuestionID string               `json:"questionId,omitempty"`
	JobID      string               `json:"jobId,omitempty"`
	By         string               `json:"by,omitempty"`
	At         string               `json:"at,omitempty"`
	Message    string               `json:"message,omitempty"`
	Question   string               `json:"question,omitempty"`
	Inbox      bool                 `json:"inbox,omitempty"`
	Control    *hitl.ControlMessage `json:"control,omitempty"`
	State      *hitl.StateEvent     `json:"state,omitempty"`
}

// toPage shapes ev for p's page.
func (h *Handler) toPage(p hitl.Principal, ev *hitl.Event) pageEvent {
	out := pageEvent{Seq: ev.Seq, Type: ev.Type, QuestionID: ev.QuestionID, JobID: ev.JobID, By: ev.Actor,
		Control: ev.Control, State: ev.State}
	if !ev.At.IsZero() {
		out.At = ev.At.UTC().Format(time.RFC3339)
	}
	switch ev.Type {
	case hitl.EventQuestionAsked, hitl.EventQuestionReopened:
		if ev.Question != nil {
			out.Question = ev.Question.Question
			out.Inbox = h.access.InInbox(p, ev.Question, false)
		}
	case hitl.EventQuestionAnswered:
		out.Message = fmt.Sprintf("Question %s was answered by %s at %s.", ev.QuestionID, ev.Actor, out.At)
	case hitl.EventQuestionCancelled:
		out.Message = fmt.Sprintf("Question %s was cancelled by %s at %s.", ev.QuestionID, ev.Actor, out.At)
	case hitl.EventQuestionTimeout:
		out.Message = fmt.Sprintf("Question %s timed out at %s.", ev.QuestionID, out.At)
	case hitl.EventApprovalAdded:
		if ev.Question != nil {
			out.Message = fmt.Sprintf("%s approved %s: %s.", ev.Actor, ev.QuestionID, ev.Question.Tally())
		}
	}
	return out
}

// handleEvents serves GET /events: the log's events the person may see,
// live from now (or after Last-Event-ID, when a page reconnects), as
// server-sent events for the page's script.
func (h *Handler) handleEvents(w http.ResponseWriter, r *http.Request, s *session) {
	ctx := r.Context()
	release, err := h.svc.OpenStream(ctx)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	defer release()
	after, err := h.svc.LastSeq(ctx)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	// A reconnecting page (EventSource sends the last id it saw) gets
	// what it missed meanwhile.
	if id, err := strconv.ParseUint(r.Header.Get("Last-Event-ID"), 10, 64); err == nil && id < after {
		after = id
	}
	rc := http.NewResponseController(w)
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	write := func(b []byte) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		if _, err := w.Write(b); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if !write([]byte(": hitl\n\n")) {
		return
	}
	beat := time.NewTicker(h.cfg.Heartbeat)
	defer beat.Stop()
	for {
		changed := h.svc.Changed() // before the read: a change after it wakes us
		evs, last, err := h.svc.Events(ctx, after, 256)
		if err != nil {
			return
		}
		for _, ev := range evs {
			b, err := json.Marshal(h.toPage(s.p, ev))
			if err != nil {
				return
			}
			if !write([]byte(fmt.Sprintf("id: %d\ndata: %s\n\n", ev.Seq, b))) {
				return
			}
		}
		read := last > after
		after = last
		if read {
			continue // more may follow at once
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		case <-beat.C:
			if !write([]byte(": beat\n\n")) {
				return
			}
		}
	}
}
