package slackfake

import (
	"strconv"
	"strings"
)

// conversations.history and conversations.replies: the messages of a
// channel (newest first, thread replies left out) or of a thread (the
// parent first, then its replies), after oldest (exclusive) and up to
// limit (by default 100 for history and 1000 for replies, as Slack's
// method pages say). Message metadata is in the answer only with
// include_all_metadata, as Slack does.

func (s *Server) conversationsHistory(req *request) result {
	channel := req.str("channel")
	if channel == "" || !s.knownChannelLocked(channel) {
		return errResult("channel_not_found")
	}
	var out []map[string]any
	msgs := s.messages[channel]
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Deleted || (m.ThreadTS != "" && m.ThreadTS != m.TS) || !afterTS(m.TS, req.str("oldest")) {
			continue
		}
		out = append(out, historyObject(m, req))
	}
	return historyResult(out, req, 100)
}

func (s *Server) conversationsReplies(req *request) result {
	channel := req.str("channel")
	if channel == "" || !s.knownChannelLocked(channel) {
		return errResult("channel_not_found")
	}
	parent := s.findMessage(channel, req.str("ts"))
	if parent == nil {
		return errResult("thread_not_found")
	}
	out := []map[string]any{historyObject(parent, req)}
	for _, m := range s.messages[channel] {
		if m.Deleted || m.ThreadTS != parent.TS || m == parent || !afterTS(m.TS, req.str("oldest")) {
			continue
		}
		out = append(out, historyObject(m, req))
	}
	return historyResult(out, req, 1000)
}

func historyObject(m *message, req *request) map[string]any {
	obj := m.object()
	if req.str("include_all_metadata") != "1" && req.str("include_all_metadata") != "true" {
		delete(obj, "metadata")
	}
	return obj
}

func historyResult(out []map[string]any, req *request, limit int) result {
	if n, err := strconv.Atoi(req.str("limit")); err == nil && n > 0 {
		limit = n
	}
	more := len(out) > limit
	if more {
		out = out[:limit]
	}
	if out == nil {
		out = []map[string]any{}
	}
	return okResult(map[string]any{"messages": out, "has_more": more})
}

// afterTS reports whether message timestamp ts is after oldest ("" is
// the beginning).
func afterTS(ts, oldest string) bool {
	if strings.TrimSpace(oldest) == "" {
		return true
	}
	a, err1 := strconv.ParseFloat(ts, 64)
	b, err2 := strconv.ParseFloat(oldest, 64)
	return err1 != nil || err2 != nil || a > b
}
