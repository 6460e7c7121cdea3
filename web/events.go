package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/broadcast"
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
	RunID      string               `json:"jobId,omitempty"`
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
	out := pageEvent{Seq: ev.Seq, Type: ev.Type, QuestionID: ev.QuestionID, RunID: ev.RunID, By: hitl.PersonName(ev.Actor),
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
		out.Message = fmt.Sprintf("Question %s was answered by %s at %s.", ev.QuestionID, hitl.PersonName(ev.Actor), out.At)
	case hitl.EventQuestionCancelled:
		out.Message = fmt.Sprintf("Question %s was cancelled by %s at %s.", ev.QuestionID, hitl.PersonName(ev.Actor), out.At)
	case hitl.EventQuestionTimeout:
		out.Message = fmt.Sprintf("Question %s timed out at %s.", ev.QuestionID, out.At)
	case hitl.EventApprovalAdded:
		if ev.Question != nil {
			out.Message = fmt.Sprintf("%s approved %s: %s.", hitl.PersonName(ev.Actor), ev.QuestionID, ev.Question.Tally())
		}
	}
	return out
}

// handleEvents serves GET /events: the log's events the person may see,
// live from now (or after Last-Event-ID, when a page reconnects), as
// server-sent events for the page's script. Live events come from the
// handler's broadcaster, which reads each change once for every open
// page (as the API's SSE does); a page reads the log itself only to catch
// up.
func (h *Handler) handleEvents(w http.ResponseWriter, r *http.Request, s *session) {
	ctx := r.Context()
	release, err := h.svc.Guard.OpenStream(ctx)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	defer release()
	sub, err := h.stream.Subscribe(ctx, s.p)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	defer h.stream.Unsubscribe(sub)
	// Live from the end of the log (the broadcaster may trail it by the
	// change in flight).
	after, err := broadcast.EndOfLog(ctx, h.svc.Log, sub.Start())
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
	st := &pageStream{h: h, p: s.p, ctx: ctx, w: w, rc: rc, cur: after}
	if !st.write([]byte(": hitl\n\n")) || !st.catchUp(sub.Start()) {
		return
	}
	beat := time.NewTicker(h.cfg.Heartbeat)
	defer beat.Stop()
	for {
		select {
		case bt := <-sub.Batches():
			if !st.deliver(bt) {
				return
			}
		case <-sub.Gone():
			return // too far behind: the page reconnects after its last id
		case <-ctx.Done():
			return
		case <-beat.C:
			if !st.write([]byte(": beat\n\n")) {
				return
			}
		}
	}
}

// pageStream is one page's event stream: where it is in the log.
type pageStream struct {
	h   *Handler
	p   hitl.Principal
	ctx context.Context
	w   http.ResponseWriter
	rc  *http.ResponseController
	cur uint64 // every event up to cur was written (or is not shown)
}

// deliver writes the events of bt the page has not had; when bt was not
// read for the page's principal, or a range is missing before it, the
// page reads the log itself.
func (st *pageStream) deliver(bt broadcast.Batch) bool {
	if bt.To <= st.cur {
		return true
	}
	if !bt.Read || bt.From > st.cur {
		return st.catchUp(bt.To)
	}
	for _, f := range bt.Frames {
		if f.Seq > st.cur && !st.send(f.Event) {
			return false
		}
	}
	st.cur = bt.To
	return true
}

// catchUp reads the log as the page's principal until it has passed to.
func (st *pageStream) catchUp(to uint64) bool {
	for st.cur < to {
		evs, last, err := st.h.svc.Log.Events(st.ctx, st.cur, broadcast.ReadBatch)
		if err != nil || last == st.cur {
			return err == nil // nothing there (retention pruned it)
		}
		for _, ev := range evs {
			if !st.send(ev) {
				return false
			}
		}
		st.cur = last
	}
	return true
}

// send writes ev as the page's script gets it.
func (st *pageStream) send(ev *hitl.Event) bool {
	b, err := json.Marshal(st.h.toPage(st.p, ev))
	if err != nil {
		return false
	}
	return st.write([]byte(fmt.Sprintf("id: %d\ndata: %s\n\n", ev.Seq, b)))
}

// write writes b and flushes, within streamWriteTimeout: a page that
// stops reading is dropped.
func (st *pageStream) write(b []byte) bool {
	_ = st.rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
	if _, err := st.w.Write(b); err != nil {
		return false
	}
	return st.rc.Flush() == nil
}
