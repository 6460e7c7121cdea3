package api

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/eventstream"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
)

// eventBatch is how many events are read from the log at a time.
const eventBatch = eventstream.ReadBatch

// handleEvents serves GET /api/events: the event log as Server-Sent
// Events, filtered by ?jobId=. A stream starts live, at the end of the
// log; Last-Event-ID (or ?after=SEQ) resumes after that event, and
// ?after=0 replays the log from its start. Every question event is
// followed by a status event for its job (without an id, so resuming is
// by log sequence only).
//
// The stream is the server's eventstream: live events come from its
// broadcaster, which reads each change once for every stream; a stream
// reads the log itself only to catch up.
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	after, resume, err := parseAfter(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	run := r.URL.Query().Get("jobId")
	if run != "" {
		if err := steer.ValidateRunID(run); err != nil {
			writeError(w, r, s.log, err)
			return
		}
	}
	s.serveStream(w, r, &stream{run: run}, after, resume)
}

// serveStream serves st as Server-Sent Events: from after when resume,
// else live from the end of the log (eventstream does the catch-up, the
// live delivery and the heartbeat; st writes the frames).
func (s *Server) serveStream(w http.ResponseWriter, r *http.Request, st *stream, after uint64, resume bool) {
	release, ok := s.openStream(w, r)
	if !ok {
		return
	}
	defer release()
	ctx := r.Context()
	es, err := s.stream.Open(ctx, eventstream.Request{Principal: auth.PrincipalFrom(ctx), Run: st.run, Resume: resume, After: after,
		Heartbeat: s.cfg.Heartbeat})
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	defer es.Close()
	st.s, st.w, st.rc = s, w, http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if s.send(st.rc, func() error { _, err := fmt.Fprint(w, "retry: 2000\n\n"); return err }) != nil {
		return
	}
	_ = es.Serve(ctx, st) // it ends the response: the client resumes with Last-Event-ID
}

// stream is one SSE response: what it shows and how.
type stream struct {
	s   *Server
	w   http.ResponseWriter
	rc  *http.ResponseController
	run string
	// topic, when set, shows only the events of one steering topic (docs/protocol.md#steering), as
	// that topic has them (topicFrame); else every event (encodeFrame).
	topic string
}

var _ eventstream.Sink = (*stream)(nil)

// Send writes the frames the stream shows, in one write deadline and one
// flush.
func (st *stream) Send(frames []eventstream.Frame) error {
	return st.s.send(st.rc, func() error {
		for _, f := range frames {
			b, err := st.frame(f)
			if err != nil {
				return err
			}
			if b == nil {
				continue
			}
			if _, err := st.w.Write(b); err != nil {
				return err
			}
		}
		return nil
	})
}

// Beat writes the heartbeat comment, with the server's time.
func (st *stream) Beat() error {
	return st.s.send(st.rc, func() error {
		_, err := fmt.Fprintf(st.w, ": ping %s\n\n", st.s.cfg.Clock.Now().UTC().Format(time.RFC3339))
		return err
	})
}

// frame is f as the stream shows it (nothing when it does not): the
// broadcaster's bytes when it encoded them, else encoded here.
func (st *stream) frame(f eventstream.Frame) ([]byte, error) {
	switch {
	case st.topic != "":
		return topicFrame(st.topic, f.Event)
	case f.B != nil:
		return f.B, nil
	}
	return encodeFrame(f.Event)
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

// parseAfter reads where to resume: the Last-Event-ID header, else
// ?after=. resume is false when neither is given (the stream starts live).
func parseAfter(r *http.Request) (after uint64, resume bool, err error) {
	v, name := r.Header.Get("Last-Event-ID"), "Last-Event-ID"
	if v == "" {
		v, name = r.URL.Query().Get("after"), "after"
	}
	if v == "" {
		return 0, false, nil
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, false, fault.Errorf(fault.EINVALID, "%s %q is invalid: use an event id (a whole number)", name, v)
	}
	return n, true, nil
}
