package agent

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/broadcast"
)

// eventBatch is how many events are read from the log at a time.
const eventBatch = broadcast.ReadBatch

// handleEvents serves GET /api/events: the event log as Server-Sent
// Events, filtered by ?jobId=. A stream starts live, at the end of the
// log; Last-Event-ID (or ?after=SEQ) resumes after that event, and
// ?after=0 replays the log from its start. Every question event is
// followed by a status event for its job (without an id, so resuming is
// by log sequence only).
//
// Live events come from the server's broadcaster, which reads each change
// once for every stream; a stream reads the log itself only to
// catch up.
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	after, resume, err := parseAfter(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	job := r.URL.Query().Get("jobId")
	if job != "" {
		if err := hitl.ValidateRunID(job); err != nil {
			writeError(w, r, s.log, err)
			return
		}
	}
	s.serveStream(w, r, &stream{job: job, cur: after}, resume)
}

// serveStream serves st as Server-Sent Events: from st.cur when resume,
// else live from the end of the log. Live events come from the server's
// broadcaster; the stream reads the log itself only to catch up.
func (s *Server) serveStream(w http.ResponseWriter, r *http.Request, st *stream, resume bool) {
	release, ok := s.openStream(w, r)
	if !ok {
		return
	}
	defer release()
	ctx := r.Context()
	sub, err := s.stream.Subscribe(ctx, hitl.PrincipalFrom(ctx))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	defer s.stream.Unsubscribe(sub)
	if !resume {
		// The broadcaster may trail the log by the change in flight.
		if st.cur, err = broadcast.EndOfLog(ctx, s.events, sub.Start()); err != nil {
			writeError(w, r, s.log, err)
			return
		}
	}
	st.s, st.ctx, st.w, st.rc = s, ctx, w, http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if s.send(st.rc, func() error { _, err := fmt.Fprint(w, "retry: 2000\n\n"); return err }) != nil {
		return
	}
	if st.catchUp(sub.Start()) != nil {
		return
	}
	ping := time.NewTicker(s.cfg.Heartbeat)
	defer ping.Stop()
	for {
		select {
		case bt := <-sub.Batches():
			if st.deliver(bt) != nil {
				return
			}
		case <-sub.Gone():
			return // too far behind: the client resumes from the log
		case <-ping.C:
			beat := func() error {
				_, err := fmt.Fprintf(w, ": ping %s\n\n", s.cfg.Clock.Now().UTC().Format(time.RFC3339))
				return err
			}
			if s.send(st.rc, beat) != nil {
				return
			}
		case <-ctx.Done():
			return
		case <-s.base.Done():
			return
		}
	}
}

// stream is one SSE response: where it is in the log, and what it shows.
type stream struct {
	s   *Server
	ctx context.Context
	w   http.ResponseWriter
	rc  *http.ResponseController
	job string
	// topic, when set, shows only the events of one steering topic (docs/protocol.md#steering), as
	// that topic has them (topicFrame); else every event (encodeFrame).
	topic string
	cur   uint64 // every event up to cur was written (or is not shown)
}

// deliver writes the frames of bt the stream has not written yet; when bt
// was not read for this stream's principal, or a range is missing before
// it, the stream reads the log itself.
func (st *stream) deliver(bt broadcast.Batch) error {
	if bt.To <= st.cur {
		return nil
	}
	if !bt.Read || bt.From > st.cur {
		return st.catchUp(bt.To)
	}
	if err := st.write(bt.Frames); err != nil {
		return err
	}
	st.cur = bt.To
	return nil
}

// catchUp reads the log as the stream's principal until the stream has
// passed to; a stream of one run reads that run's events by the log's
// index, so replaying a run costs what the run holds, not the log.
func (st *stream) catchUp(to uint64) error {
	for st.cur < to {
		var evs []*hitl.Event
		var last uint64
		var err error
		if st.job != "" {
			evs, last, err = st.s.events.RunEvents(st.ctx, st.job, st.cur, eventBatch)
		} else {
			evs, last, err = st.s.events.Events(st.ctx, st.cur, eventBatch)
		}
		if err != nil {
			if st.ctx.Err() == nil {
				st.s.log.ErrorContext(st.ctx, "reading the event log", "after", st.cur, "err", err)
			}
			return err
		}
		if last == st.cur {
			return nil // nothing there (retention pruned it)
		}
		frames := make([]broadcast.Frame, 0, len(evs))
		for _, ev := range evs {
			frames = append(frames, broadcast.Frame{Seq: ev.Seq, RunID: ev.RunID, Event: ev})
		}
		if err := st.write(frames); err != nil {
			return err
		}
		st.cur = last
	}
	return nil
}

// write writes the frames after cur that the stream shows, in one write
// deadline and one flush.
func (st *stream) write(frames []broadcast.Frame) error {
	return st.s.send(st.rc, func() error {
		for _, f := range frames {
			if f.Seq <= st.cur || (st.job != "" && f.RunID != st.job) {
				continue
			}
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

// frame is f as the stream shows it (nothing when it does not): the
// broadcaster's bytes when it encoded them, else encoded here.
func (st *stream) frame(f broadcast.Frame) ([]byte, error) {
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
		return 0, false, hitl.Errorf(hitl.EINVALID, "%s %q is invalid: use an event id (a whole number)", name, v)
	}
	return n, true, nil
}
