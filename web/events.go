package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/eventstream"
	"github.com/hitlbot/hitl/steer"
	"github.com/hitlbot/hitl/visible"
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
	Seq        uint64                `json:"seq"`
	Type       hitl.EventType        `json:"type"`
	QuestionID string                `json:"questionId,omitempty"`
	RunID      string                `json:"jobId,omitempty"`
	By         string                `json:"by,omitempty"`
	At         string                `json:"at,omitempty"`
	Message    string                `json:"message,omitempty"`
	Question   string                `json:"question,omitempty"`
	Inbox      bool                  `json:"inbox,omitempty"`
	Control    *steer.ControlMessage `json:"control,omitempty"`
	State      *steer.StateEvent     `json:"state,omitempty"`
}

// toPage shapes ev for p's page.
func (h *Handler) toPage(p auth.Principal, ev *hitl.Event) pageEvent {
	out := pageEvent{Seq: ev.Seq, Type: ev.Type, QuestionID: ev.QuestionID, RunID: ev.RunID, By: auth.PersonName(ev.Actor),
		Control: ev.Control, State: ev.State}
	if !ev.At.IsZero() {
		out.At = ev.At.UTC().Format(time.RFC3339)
	}
	switch ev.Type {
	case hitl.EventQuestionAsked, hitl.EventQuestionReopened:
		if ev.Question != nil {
			out.Question = visible.Text(ev.Question.Question) // a notification's text
			if visible.Has(ev.Question.Question) {
				out.Question += " (⚠ " + visible.Flag + ")"
			}
			out.Inbox = h.access.InInbox(p, ev.Question, false)
		}
	case hitl.EventQuestionAnswered:
		out.Message = fmt.Sprintf("Question %s was answered by %s at %s.", ev.QuestionID, auth.PersonName(ev.Actor), out.At)
	case hitl.EventQuestionCancelled:
		out.Message = fmt.Sprintf("Question %s was cancelled by %s at %s.", ev.QuestionID, auth.PersonName(ev.Actor), out.At)
	case hitl.EventQuestionTimeout:
		out.Message = fmt.Sprintf("Question %s timed out at %s.", ev.QuestionID, out.At)
	case hitl.EventApprovalAdded:
		if ev.Question != nil {
			out.Message = fmt.Sprintf("%s approved %s: %s.", auth.PersonName(ev.Actor), ev.QuestionID, ev.Question.Tally())
		}
	}
	return out
}

// handleEvents serves GET /events: the log's events the person may see,
// live from now (or after Last-Event-ID, when a page reconnects), as
// server-sent events for the page's script. The stream is the handler's
// eventstream (as the API's SSE is): live events come from its
// broadcaster, which reads each change once for every open page; a page
// reads the log itself only to catch up.
func (h *Handler) handleEvents(w http.ResponseWriter, r *http.Request, s *signIn) {
	ctx := r.Context()
	release, err := h.svc.Guard.OpenStream(ctx)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	defer release()
	req := eventstream.Request{Principal: s.p, Heartbeat: h.cfg.Heartbeat}
	// A reconnecting page (EventSource sends the last id it saw) gets
	// what it missed meanwhile; an id past the end of the log is live.
	if id, err := strconv.ParseUint(r.Header.Get("Last-Event-ID"), 10, 64); err == nil {
		req.Resume, req.After, req.NotPastEnd = true, id, true
	}
	es, err := h.stream.Open(ctx, req)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	defer es.Close()
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	st := &pageStream{h: h, p: s.p, w: w, rc: http.NewResponseController(w)}
	if st.write([]byte(": hitl\n\n")) != nil {
		return
	}
	_ = es.Serve(ctx, st) // it ends the response: the page reconnects after its last id
}

// pageStream writes one page's event stream.
type pageStream struct {
	h  *Handler
	p  auth.Principal
	w  http.ResponseWriter
	rc *http.ResponseController
}

var _ eventstream.Sink = (*pageStream)(nil)

// Send writes each event as the page's script gets it.
func (st *pageStream) Send(frames []eventstream.Frame) error {
	for _, f := range frames {
		b, err := json.Marshal(st.h.toPage(st.p, f.Event))
		if err != nil {
			return err
		}
		if err := st.write([]byte(fmt.Sprintf("id: %d\ndata: %s\n\n", f.Seq, b))); err != nil {
			return err
		}
	}
	return nil
}

// Beat writes the keep-alive comment.
func (st *pageStream) Beat() error { return st.write([]byte(": beat\n\n")) }

// write writes b and flushes, within streamWriteTimeout: a page that
// stops reading is dropped.
func (st *pageStream) write(b []byte) error {
	_ = st.rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
	if _, err := st.w.Write(b); err != nil {
		return err
	}
	return st.rc.Flush()
}
