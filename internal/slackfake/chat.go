package slackfake

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

var conversationID = regexp.MustCompile(`^[CDG][A-Z0-9]+$`)

// knownChannelLocked reports whether channel exists in the fake workspace.
func (s *Server) knownChannelLocked(channel string) bool {
	if _, ok := s.cfg.channels[channel]; ok {
		return true
	}
	for _, id := range s.dms {
		if id == channel {
			return true
		}
	}
	return len(s.cfg.channels) == 0 && conversationID.MatchString(channel)
}

// nextTSLocked issues a message timestamp: the clock's time in Slack's
// "seconds.micros" form, strictly increasing.
func (s *Server) nextTSLocked() string {
	us := s.cfg.clock.Now().UnixMicro() / 100 * 100
	if us <= s.lastTS {
		us = s.lastTS + 100
	}
	s.lastTS = us
	return fmt.Sprintf("%d.%06d", us/1_000_000, us%1_000_000)
}

// messageContent reads and validates text and blocks of chat.* calls. A nil
// text or blocks means the argument was absent (chat.update keeps the old one).
func messageContent(req *request) (text *string, blocks *json.RawMessage, res result, ok bool) {
	if req.has("text") {
		t := req.str("text")
		text = &t
	}
	if raw, has := req.rawJSON("blocks"); has {
		blocks = &raw
	}
	hasAttachments := req.str("attachments") != "" && req.str("attachments") != "[]"
	if (text == nil || *text == "") && (blocks == nil || isEmptyArray(*blocks)) && !hasAttachments {
		return nil, nil, errResult("no_text"), false
	}
	if blocks != nil {
		code, msgs := validateMessageBlocks(*blocks)
		if code != "" {
			return nil, nil, errResult(code, msgs...), false
		}
	}
	if text != nil && runeLen(*text) > maxMessageText {
		return nil, nil, errResult("msg_too_long"), false
	}
	return text, blocks, result{}, true
}

// chatPostMessage posts a message, or a thread reply with thread_ts.
func (s *Server) chatPostMessage(req *request) result {
	channel := req.str("channel")
	if channel == "" || !s.knownChannelLocked(channel) {
		return errResult("channel_not_found")
	}
	text, blocks, res, ok := messageContent(req)
	if !ok {
		return res
	}
	m := &message{Message: Message{
		Channel:  channel,
		TS:       s.nextTSLocked(),
		ThreadTS: req.str("thread_ts"),
		User:     BotUserID,
		BotID:    BotID,
	}}
	if m.ThreadTS != "" {
		parent := s.findMessage(channel, m.ThreadTS)
		if parent == nil {
			return errResult("thread_not_found")
		}
		parent.Replies++
	}
	if text != nil {
		m.Text = *text
	}
	if blocks != nil && !isEmptyArray(*blocks) {
		m.Blocks = compactJSON(*blocks)
	}
	if md, has := req.rawJSON("metadata"); has {
		m.Metadata = compactJSON(md)
	}
	s.messages[channel] = append(s.messages[channel], m)
	return okResult(map[string]any{"channel": channel, "ts": m.TS, "message": m.object()})
}

// botMessage finds the bot's own message named by the request's channel
// and ts, or the error Slack gives; notOwn is the error for someone else's.
func (s *Server) botMessage(req *request, notOwn string) (*message, string, *result) {
	channel := req.str("channel")
	if channel == "" || !s.knownChannelLocked(channel) {
		r := errResult("channel_not_found")
		return nil, channel, &r
	}
	m := s.findMessage(channel, req.str("ts"))
	if m == nil {
		r := errResult("message_not_found")
		return nil, channel, &r
	}
	if m.BotID != BotID {
		r := errResult(notOwn)
		return nil, channel, &r
	}
	return m, channel, nil
}

// chatUpdate edits a message the bot posted.
func (s *Server) chatUpdate(req *request) result {
	m, channel, bad := s.botMessage(req, "cant_update_message")
	if bad != nil {
		return *bad
	}
	text, blocks, res, ok := messageContent(req)
	if !ok {
		return res
	}
	m.snapshot()
	if text != nil {
		m.Text = *text
	}
	if blocks != nil {
		m.Blocks = nil
		if !isEmptyArray(*blocks) {
			m.Blocks = compactJSON(*blocks)
		}
	}
	m.Updated = true
	m.Updates++
	return okResult(map[string]any{"channel": channel, "ts": m.TS, "text": m.Text, "message": m.object()})
}

// chatDelete deletes a message the bot posted.
func (s *Server) chatDelete(req *request) result {
	m, channel, bad := s.botMessage(req, "cant_delete_message")
	if bad != nil {
		return *bad
	}
	m.Deleted = true
	return okResult(map[string]any{"channel": channel, "ts": m.TS})
}

// chatPostEphemeral posts a message only user can see.
func (s *Server) chatPostEphemeral(req *request) result {
	channel := req.str("channel")
	if channel == "" || !s.knownChannelLocked(channel) {
		return errResult("channel_not_found")
	}
	if req.str("user") == "" {
		return errResult("invalid_arguments", "missing required field: user")
	}
	text, blocks, res, ok := messageContent(req)
	if !ok {
		return res
	}
	m := Message{Channel: channel, TS: s.nextTSLocked(), ThreadTS: req.str("thread_ts"),
		User: BotUserID, BotID: BotID, EphemeralUser: req.str("user")}
	if text != nil {
		m.Text = *text
	}
	if blocks != nil && !isEmptyArray(*blocks) {
		m.Blocks = compactJSON(*blocks)
	}
	s.ephemerals = append(s.ephemerals, m)
	return okResult(map[string]any{"message_ts": m.TS})
}

// chatGetPermalink returns a permalink in Slack's format.
func (s *Server) chatGetPermalink(req *request) result {
	channel := req.str("channel")
	if channel == "" || !s.knownChannelLocked(channel) {
		return errResult("channel_not_found")
	}
	m := s.findMessage(channel, req.str("message_ts"))
	if m == nil {
		return errResult("message_not_found")
	}
	link := fmt.Sprintf("https://%s.slack.com/archives/%s/p%s", TeamDomain, channel, strings.ReplaceAll(m.TS, ".", ""))
	if m.ThreadTS != "" && m.ThreadTS != m.TS {
		link += "?thread_ts=" + m.ThreadTS + "&cid=" + channel
	}
	return okResult(map[string]any{"channel": channel, "permalink": link})
}

// reactionsAdd adds a reaction as the bot user.
func (s *Server) reactionsAdd(req *request) result {
	channel, ts, name := req.str("channel"), req.str("timestamp"), strings.Trim(req.str("name"), ":")
	switch {
	case channel == "" || ts == "":
		return errResult("no_item_specified")
	case name == "":
		return errResult("invalid_name")
	case !s.knownChannelLocked(channel):
		return errResult("channel_not_found")
	case s.findMessage(channel, ts) == nil:
		return errResult("message_not_found")
	}
	for _, r := range s.reactions {
		if r.Channel == channel && r.Timestamp == ts && r.Name == name && r.User == BotUserID {
			return errResult("already_reacted")
		}
	}
	s.reactions = append(s.reactions, Reaction{Channel: channel, Timestamp: ts, Name: name,
		User: BotUserID, At: s.cfg.clock.Now()})
	return okResult(nil)
}

// conversationsOpen opens (or finds) the DM with one user, or the group DM
// with several. The ID is stable per set of users.
func (s *Server) conversationsOpen(req *request) result {
	if ch := req.str("channel"); ch != "" {
		if !s.knownChannelLocked(ch) {
			return errResult("channel_not_found")
		}
		return okResult(map[string]any{"no_op": true, "already_open": true, "channel": map[string]any{"id": ch}})
	}
	var users []string
	for u := range strings.SplitSeq(req.str("users"), ",") {
		if u = strings.TrimSpace(u); u != "" && u != BotUserID {
			users = append(users, u)
		}
	}
	if len(users) == 0 {
		return errResult("users_list_not_supplied")
	}
	if len(users) > 8 {
		return errResult("too_many_users")
	}
	key := strings.Join(slices.Sorted(slices.Values(users)), ",")
	if id, ok := s.dms[key]; ok {
		return okResult(map[string]any{"no_op": true, "already_open": true, "channel": map[string]any{"id": id}})
	}
	return okResult(map[string]any{"channel": map[string]any{"id": s.dmLocked(users...)}})
}

// dmLocked returns the conversation ID for the DM (or group DM) with users,
// creating it if needed.
func (s *Server) dmLocked(users ...string) string {
	key := strings.Join(slices.Sorted(slices.Values(users)), ",")
	if id, ok := s.dms[key]; ok {
		return id
	}
	prefix := "D"
	if len(users) > 1 {
		prefix = "G"
	}
	id := fmt.Sprintf("%s0FAKE%04d", prefix, len(s.dms)+1)
	s.dms[key] = id
	return id
}

// object renders a stored message the way Slack returns it in API answers
// and interaction payloads.
func (m *message) object() map[string]any {
	obj := map[string]any{
		"type": "message",
		"text": m.Text,
		"user": m.User,
		"ts":   m.TS,
		"team": TeamID,
	}
	if m.BotID != "" {
		obj["bot_id"] = m.BotID
		obj["app_id"] = AppID
		obj["bot_profile"] = botProfile(m.BotID)
	}
	if m.ClientMsgID != "" {
		obj["client_msg_id"] = m.ClientMsgID
	}
	if m.Blocks != nil {
		obj["blocks"] = m.Blocks
	}
	if m.ThreadTS != "" {
		obj["thread_ts"] = m.ThreadTS
	}
	if m.Replies > 0 {
		obj["thread_ts"] = m.TS
		obj["reply_count"] = m.Replies
	}
	if m.Updated {
		obj["edited"] = map[string]any{"user": m.User, "ts": m.TS}
	}
	if m.Metadata != nil {
		obj["metadata"] = m.Metadata
	}
	return obj
}

// botProfile is the bot_profile object Slack attaches to bot messages.
func botProfile(botID string) map[string]any {
	name, app := BotName, AppID
	if botID != BotID {
		name, app = "other-bot-"+lower(botID), "A"+strings.TrimPrefix(botID, "B")
	}
	return map[string]any{"id": botID, "app_id": app, "name": name, "deleted": false,
		"team_id": TeamID, "icons": map[string]any{"image_36": "https://a.slack-edge.com/80588/img/plugins/app/bot_36.png"}}
}
