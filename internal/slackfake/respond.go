package slackfake

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// responseTarget is what a response_url answers to.
type responseTarget struct {
	channel, ts, user string
}

// responseURLLocked issues a response_url for an interaction on message ts
// (empty for slash commands) by user in channel.
func (s *Server) responseURLLocked(channel, ts, user string) string {
	id := TeamID + "/" + randomHex(12)
	s.responseURLs[id] = responseTarget{channel: channel, ts: ts, user: user}
	return s.ts.URL + "/response/" + id
}

// serveResponseURL handles posts to a response_url: replace_original and
// delete_original change the source message; otherwise a new message is
// posted, ephemeral unless response_type is "in_channel". The call is
// recorded with method "response_url".
func (s *Server) serveResponseURL(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	id := strings.TrimPrefix(r.URL.Path, "/response/")
	var msg struct {
		Text            string          `json:"text"`
		Blocks          json.RawMessage `json:"blocks"`
		ThreadTS        string          `json:"thread_ts"`
		ResponseType    string          `json:"response_type"`
		ReplaceOriginal bool            `json:"replace_original"`
		DeleteOriginal  bool            `json:"delete_original"`
	}
	perr := json.Unmarshal(body, &msg)
	call := Call{Method: "response_url", HTTPMethod: r.Method, ContentType: r.Header.Get("Content-Type"), Body: body}
	_ = json.Unmarshal(body, &call.JSON)

	s.mu.Lock()
	call.At = s.cfg.clock.Now()
	target, ok := s.responseURLs[id]
	var res result
	switch {
	case !ok:
		res = result{status: http.StatusNotFound, body: []byte(`{"ok":false,"error":"no_active_hooks"}`)}
	case perr != nil:
		res = errResult("invalid_payload")
	default:
		res = s.respondLocked(target, msg.Text, msg.Blocks, msg.ThreadTS, msg.ResponseType, msg.ReplaceOriginal, msg.DeleteOriginal)
	}
	call.Status, call.OK, call.Error, call.Response = res.status, res.ok, res.errCode, res.body
	failing := s.recordLocked(call, res.messages)
	s.mu.Unlock()
	if failing != nil {
		s.t.Errorf("slackfake: rejected %s", failing)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(res.status)
	_, _ = w.Write(res.body)
}

// respondLocked applies a response_url message.
func (s *Server) respondLocked(t responseTarget, text string, blocks json.RawMessage, threadTS, responseType string, replace, del bool) result {
	if len(blocks) > 0 && string(blocks) != "null" {
		if code, msgs := validateMessageBlocks(blocks); code != "" {
			return errResult(code, msgs...)
		}
	} else {
		blocks = nil
	}
	if !del && text == "" && (blocks == nil || isEmptyArray(blocks)) {
		return errResult("no_text")
	}
	if runeLen(text) > maxMessageText {
		return errResult("msg_too_long")
	}
	if replace || del {
		m := s.findMessage(t.channel, t.ts)
		if m == nil {
			return errResult("message_not_found")
		}
		if del {
			m.Deleted = true
			return okResult(nil)
		}
		m.snapshot()
		m.Text, m.Blocks = text, nil
		if blocks != nil && !isEmptyArray(blocks) {
			m.Blocks = compactJSON(blocks)
		}
		m.Updated = true
		m.Updates++
		return okResult(nil)
	}
	nm := Message{Channel: t.channel, TS: s.nextTSLocked(), ThreadTS: threadTS, User: BotUserID, BotID: BotID, Text: text}
	if blocks != nil && !isEmptyArray(blocks) {
		nm.Blocks = compactJSON(blocks)
	}
	if responseType == "in_channel" {
		s.messages[t.channel] = append(s.messages[t.channel], &message{Message: nm})
	} else {
		nm.EphemeralUser = t.user
		s.ephemerals = append(s.ephemerals, nm)
	}
	return okResult(nil)
}
