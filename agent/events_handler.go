package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/hitlbot/hitl"
)

// eventBatch is how many events the stream reads from the log at a time.
const eventBatch = 256

// sseEvent is the data of one SSE event, in seed 001's shapes:
// question_asked carries the question, question_answered the response;
// question_timeout and question_cancelled carry the response used (the
// default, if any) and the cancel reason; status carries the job's status;
// refused (admins only) carries who tried which action and the rule that
// refused it, question_reopened why the question waits again.
type sseEvent struct {
	Type       hitl.EventType `json:"type"`
	QuestionID string         `json:"questionId,omitempty"`
	JobID      string         `json:"jobId"`
	Question   *sseQuestion   `json:"question,omitempty"`
	Response   *hitl.Response `json:"response,omitempty"`
	Reason     string         `json:"reason,omitempty"`
	Action     hitl.Action    `json:"action,omitempty"`
	Status     hitl.RunPhase  `json:"status,omitempty"`
	By         string         `json:"by,omitempty"`
	At         *time.Time     `json:"at,omitempty"`
}

// sseQuestion is the question of a question_asked event (seed 001).
type sseQuestion struct {
	Question     string            `json:"question"`
	Type         hitl.QuestionType `json:"type"`
	ResponseType hitl.ResponseType `json:"responseType"`
	InputType    hitl.InputType    `json:"inputType,omitempty"`
	Sensitive    bool              `json:"sensitive,omitempty"`
	Options      []hitl.Option     `json:"options,omitempty"`
	Context      *hitl.Context     `json:"context,omitempty"`
	TimeoutAt    *time.Time        `json:"timeoutAt"`
	Assignees    []string          `json:"assignees,omitempty"`
	Default      *hitl.Response    `json:"defaultResponse,omitempty"`
	Status       hitl.Status       `json:"status,omitempty"`
	Metadata     map[string]any    `json:"metadata,omitempty"`
}

// handleEvents serves GET /api/events: the event log as Server-Sent
// Events, resumable with Last-Event-ID (or ?after=SEQ), filtered by
// ?jobId=. Every question event is followed by a status event for its job
// (without an id, so resuming is by log sequence only).
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	after, err := parseAfter(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	job := r.URL.Query().Get("jobId")
	if job != "" {
		if err := hitl.ValidateJobID(job); err != nil {
			writeError(w, r, s.log, err)
			return
		}
	}
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if s.send(rc, func() error { _, err := fmt.Fprint(w, "retry: 2000\n\n"); return err }) != nil {
		return
	}
	ctx := r.Context()
	ping := time.NewTicker(s.cfg.Heartbeat)
	defer ping.Stop()
	for {
		changed := s.events.Changed()
		evs, last, err := s.events.Events(ctx, after, eventBatch)
		if err != nil {
			if ctx.Err() == nil {
				s.log.ErrorContext(ctx, "reading the event log", "after", after, "err", err)
			}
			return
		}
		read := last - after
		after = last
		for _, ev := range evs {
			if job != "" && ev.JobID != job {
				continue
			}
			if s.send(rc, func() error { return s.writeEvent(ctx, w, ev) }) != nil {
				return
			}
		}
		if read >= eventBatch {
			continue
		}
		select {
		case <-changed:
		case <-ping.C:
			beat := func() error {
				_, err := fmt.Fprintf(w, ": ping %s\n\n", s.cfg.Clock.Now().UTC().Format(time.RFC3339))
				return err
			}
			if s.send(rc, beat) != nil {
				return
			}
		case <-ctx.Done():
			return
		case <-s.base.Done():
			return
		}
	}
}

// send writes to the stream with write and flushes, within
// StreamWriteTimeout of wall-clock time: a reader that stops reading fills
// the connection's buffers, the write fails at the deadline, and the
// stream ends.
func (s *Server) send(rc *http.ResponseController, write func() error) error {
	if err := rc.SetWriteDeadline(time.Now().Add(s.cfg.StreamWriteTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	if err := write(); err != nil {
		return err
	}
	return rc.Flush()
}

// parseAfter reads where to resume: the Last-Event-ID header, else ?after=.
func parseAfter(r *http.Request) (uint64, error) {
	v, name := r.Header.Get("Last-Event-ID"), "Last-Event-ID"
	if v == "" {
		v, name = r.URL.Query().Get("after"), "after"
	}
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, hitl.Errorf(hitl.EINVALID, "%s %q is invalid: use an event id (a whole number)", name, v)
	}
	return n, nil
}

// writeEvent writes ev and, for a question event, the job's status now.
func (s *Server) writeEvent(ctx context.Context, w http.ResponseWriter, ev *hitl.Event) error {
	if err := writeSSE(w, strconv.FormatUint(ev.Seq, 10), ev.Type, toSSE(ev)); err != nil {
		return err
	}
	if ev.Type == hitl.EventStatus || ev.Type == hitl.EventRefused || ev.QuestionID == "" {
		return nil // a refusal changes nothing
	}
	st, err := s.svc.RunState(ctx, ev.JobID)
	if err != nil {
		if ctx.Err() == nil {
			s.log.WarnContext(ctx, "run state for the event stream", "job", ev.JobID, "err", err)
		}
		return nil
	}
	return writeSSE(w, "", hitl.EventStatus, sseEvent{Type: hitl.EventStatus, JobID: ev.JobID, Status: st.Phase})
}

// toSSE shapes a log event as seed 001's SSE payload.
func toSSE(ev *hitl.Event) sseEvent {
	out := sseEvent{Type: ev.Type, QuestionID: ev.QuestionID, JobID: ev.JobID, Response: ev.Response, Status: ev.Status, By: ev.Actor,
		Reason: ev.Reason, Action: ev.Action}
	if !ev.At.IsZero() {
		at := ev.At
		out.At = &at
	}
	q := ev.Question
	if q == nil {
		return out
	}
	switch ev.Type {
	case hitl.EventQuestionAsked:
		out.Response = nil
		out.Question = &sseQuestion{
			Question: q.Question, Type: q.Type, ResponseType: q.ResponseType, InputType: q.InputType,
			Sensitive: q.Sensitive, Options: q.Options, Context: q.Context, TimeoutAt: q.TimeoutAt,
			Assignees: q.Assignees, Default: q.DefaultResponse, Status: q.Status, Metadata: q.Metadata,
		}
	}
	return out
}

// writeSSE writes one event. The data is one line of JSON.
func writeSSE(w http.ResponseWriter, id string, typ hitl.EventType, data any) error {
	b, err := json.Marshal(data)
	if err != nil {
		return err
	}
	if id != "" {
		if _, err := fmt.Fprintf(w, "id: %s\n", id); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
	return err
}
