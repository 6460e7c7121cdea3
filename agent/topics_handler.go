package agent

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/hitlbot/hitl"
)

// handleTopic serves GET /api/topics/loop:control and loop:current as
// Server-Sent Events: each message as seed 000 has it (ACK and RESULT on
// loop:control; STATE, ABORT and DONE on loop:current), with the log's
// sequence as its id, filtered by ?run_id=. Without Last-Event-ID or
// ?after the stream starts live; after=0 replays the log.
func (s *Server) handleTopic(typ hitl.EventType) http.HandlerFunc {
	name := hitl.TopicControl
	if typ == hitl.EventLoop {
		name = hitl.TopicCurrent
	}
	return func(w http.ResponseWriter, r *http.Request) {
		run := r.URL.Query().Get("run_id")
		if run != "" {
			if err := hitl.ValidateRunID(run); err != nil {
				writeError(w, r, s.log, err)
				return
			}
		}
		after, resume, err := parseAfter(r)
		if err != nil {
			writeError(w, r, s.log, err)
			return
		}
		if !resume {
			if after, err = s.logEnd(r); err != nil {
				writeError(w, r, s.log, err)
				return
			}
		}
		release, ok := s.openStream(w, r)
		if !ok {
			return
		}
		defer release()
		rc := http.NewResponseController(w)
		h := w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Accel-Buffering", "no")
		w.WriteHeader(http.StatusOK)
		write := func(f string, args ...any) bool {
			_ = rc.SetWriteDeadline(time.Now().Add(s.cfg.StreamWriteTimeout))
			_, err := fmt.Fprintf(w, f, args...)
			return err == nil && rc.Flush() == nil
		}
		if !write("retry: 2000\n\n") {
			return
		}
		ctx := r.Context()
		ping := time.NewTicker(s.cfg.Heartbeat)
		defer ping.Stop()
		for {
			changed := s.events.Changed()
			// A run's topic is read by the log's run index: the read
			// returns the end of the log once it has the run's events,
			// and the next read, finding nothing new, waits.
			read := func() ([]*hitl.Event, uint64, error) { return s.events.Events(ctx, after, eventBatch) }
			if run != "" {
				read = func() ([]*hitl.Event, uint64, error) { return s.events.RunEvents(ctx, run, after, eventBatch) }
			}
			evs, last, err := read()
			if err != nil {
				return
			}
			more := last-after >= eventBatch || (run != "" && last > after)
			after = last
			for _, ev := range evs {
				if ev.Type != typ || (run != "" && ev.RunID != run) {
					continue
				}
				var data any = ev.Control
				if typ == hitl.EventLoop {
					data = ev.State
				}
				if err := writeSSE(w, strconv.FormatUint(ev.Seq, 10), hitl.EventType(name), data); err != nil || rc.Flush() != nil {
					return
				}
			}
			if more {
				continue
			}
			select {
			case <-changed:
			case <-ping.C:
				if !write(": ping %s\n\n", s.cfg.Clock.Now().UTC().Format(time.RFC3339)) {
					return
				}
			case <-ctx.Done():
				return
			case <-s.base.Done():
				return
			}
		}
	}
}

// logEnd is the sequence of the last event on the log now: where a live
// stream starts. An event log that cannot say reads to its end.
func (s *Server) logEnd(r *http.Request) (uint64, error) {
	if l, ok := s.events.(interface {
		LastSeq(context.Context) (uint64, error)
	}); ok {
		return l.LastSeq(r.Context())
	}
	after := uint64(0)
	for {
		_, last, err := s.events.Events(r.Context(), after, eventBatch)
		if err != nil || last == after {
			return after, err
		}
		after = last
	}
}
