package api

import (
	"bytes"
	"net/http"
	"strconv"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/steer"
)

// handleTopic serves GET /api/topics/loop:control and loop:current as
// Server-Sent Events: each message as docs/protocol.md#steering has it (ACK and RESULT on
// loop:control; STATE, ABORT and DONE on loop:current), with the log's
// sequence as its id, filtered by ?run_id=. Without Last-Event-ID or
// ?after the stream starts live; after=0 replays the log. Live messages
// come from the server's broadcaster, as on GET /api/events.
func (s *Server) handleTopic(topic string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		run := r.URL.Query().Get("run_id")
		if run != "" {
			if err := steer.ValidateRunID(run); err != nil {
				writeError(w, r, s.log, err)
				return
			}
		}
		after, resume, err := parseAfter(r)
		if err != nil {
			writeError(w, r, s.log, err)
			return
		}
		s.serveStream(w, r, &stream{run: run, topic: topic}, after, resume)
	}
}

// topicFrame encodes ev as topic shows it: the message alone (docs/protocol.md#steering,
// JSON) with the log's sequence as id; nothing when ev is not on topic.
func topicFrame(topic string, ev *hitl.Event) ([]byte, error) {
	var data any
	switch {
	case topic == steer.TopicControl && ev.Type == hitl.EventControl:
		data = ev.Control
	case topic == steer.TopicCurrent && ev.Type == hitl.EventRunState:
		data = ev.State
	default:
		return nil, nil
	}
	var buf bytes.Buffer
	err := writeSSE(&buf, strconv.FormatUint(ev.Seq, 10), hitl.EventType(topic), data)
	return buf.Bytes(), err
}
