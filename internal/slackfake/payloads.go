package slackfake

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// Payload is a JSON object Slack sends to the app: an Events API
// event_callback, an interaction payload or a slash command. Builders return
// it ready to send; tests may change fields before sending.
type Payload map[string]any

// Event returns the inner event of an event_callback payload.
func (p Payload) Event() map[string]any {
	ev, _ := p["event"].(map[string]any)
	return ev
}

// JSON encodes the payload.
func (p Payload) JSON() []byte {
	b, _ := json.Marshal(p)
	return b
}

// eventCallback wraps an inner event in Slack's Events API envelope.
func (s *Server) eventCallback(inner map[string]any) Payload {
	s.mu.Lock()
	s.seq++
	id := fmt.Sprintf("Ev0FAKE%05d", s.seq)
	now := s.cfg.clock.Now()
	s.mu.Unlock()
	ctxJSON, _ := json.Marshal(map[string]any{"et": inner["type"], "tid": TeamID, "aid": AppID, "cid": inner["channel"]})
	return Payload{
		"token":      VerificationToken,
		"team_id":    TeamID,
		"api_app_id": AppID,
		"event":      inner,
		"type":       "event_callback",
		"event_id":   id,
		"event_time": now.Unix(),
		"authorizations": []any{map[string]any{
			"enterprise_id": nil, "team_id": TeamID, "user_id": BotUserID,
			"is_bot": true, "is_enterprise_install": false,
		}},
		"is_ext_shared_channel": false,
		"event_context":         "4-" + base64.RawURLEncoding.EncodeToString(ctxJSON),
	}
}

// channelType is the channel_type of message events for a conversation ID.
func channelType(channel string) string {
	switch {
	case strings.HasPrefix(channel, "D"):
		return "im"
	case strings.HasPrefix(channel, "G"):
		return "group"
	default:
		return "channel"
	}
}

// MessageEvent is a user's message in channel, or a thread reply when
// threadTs is the ts of a stored message. The message is stored, so the bot
// can react to it or reply in its thread.
func (s *Server) MessageEvent(user, channel, text, threadTs string) Payload {
	return s.storeMessageEvent(&message{
		Message:     Message{Channel: channel, ThreadTS: threadTs, User: user, Text: text},
		ClientMsgID: newUUID(),
	}, true)
}

// BotMessageEvent is a message posted by an app's bot with its bot token, as
// Slack delivers it: no subtype, with bot_id, app_id and bot_profile. Use
// BotID for an echo of this app's own bot, another B... ID for other apps.
func (s *Server) BotMessageEvent(botID, channel, text, threadTs string) Payload {
	user := BotUserID
	if botID != BotID {
		user = "U" + strings.TrimPrefix(botID, "B")
	}
	return s.storeMessageEvent(&message{
		Message: Message{Channel: channel, ThreadTS: threadTs, User: user, BotID: botID, Text: text},
	}, false)
}

// MessageEventFor is the message event of a stored message, such as the
// event Slack sends back when the bot's own chat.postMessage lands in a
// channel it listens to.
func (s *Server) MessageEventFor(channel, ts string) Payload {
	s.mu.Lock()
	m := s.findMessage(channel, ts)
	var ev map[string]any
	if m != nil {
		ev = s.messageEventLocked(m)
	}
	s.mu.Unlock()
	if m == nil {
		s.t.Errorf("slackfake: MessageEventFor: no message %s in %s", ts, channel)
		return Payload{}
	}
	return s.eventCallback(ev)
}

// storeMessageEvent gives m a ts, stores it and builds its event.
func (s *Server) storeMessageEvent(m *message, richText bool) Payload {
	s.mu.Lock()
	m.TS = s.nextTSLocked()
	if richText && m.Text != "" {
		m.Blocks = richTextBlocks(m.Text)
	}
	if m.ThreadTS != "" {
		if parent := s.findMessage(m.Channel, m.ThreadTS); parent != nil {
			parent.Replies++
		} else {
			s.t.Errorf("slackfake: no message %s in %s to reply to", m.ThreadTS, m.Channel)
		}
	}
	s.messages[m.Channel] = append(s.messages[m.Channel], m)
	ev := s.messageEventLocked(m)
	s.notifyLocked()
	s.mu.Unlock()
	return s.eventCallback(ev)
}

// messageEventLocked renders a stored message as a message event.
func (s *Server) messageEventLocked(m *message) map[string]any {
	ev := m.object()
	ev["channel"] = m.Channel
	ev["event_ts"] = m.TS
	ev["channel_type"] = channelType(m.Channel)
	if m.ThreadTS != "" && m.ThreadTS != m.TS {
		ev["thread_ts"] = m.ThreadTS
		if parent := s.findMessage(m.Channel, m.ThreadTS); parent != nil {
			ev["parent_user_id"] = parent.User
		}
	}
	return ev
}

// richTextBlocks is the rich_text block Slack attaches to a user's plain
// message.
func richTextBlocks(text string) json.RawMessage {
	b, _ := json.Marshal([]any{map[string]any{
		"type":     "rich_text",
		"block_id": randomHex(4),
		"elements": []any{map[string]any{
			"type":     "rich_text_section",
			"elements": []any{map[string]any{"type": "text", "text": text}},
		}},
	}})
	return b
}

// AppHomeOpened is the app_home_opened event for user opening the Home tab.
// It carries the published Home view, if any, like Slack.
func (s *Server) AppHomeOpened(user string) Payload {
	s.mu.Lock()
	ev := map[string]any{
		"type":     "app_home_opened",
		"user":     user,
		"channel":  s.dmLocked(user),
		"tab":      "home",
		"event_ts": s.nextTSLocked(),
	}
	if id, ok := s.homes[user]; ok {
		ev["view"] = s.views[id].object()
	}
	s.mu.Unlock()
	return s.eventCallback(ev)
}

// SlashCommand is the payload of user typing "command text" in channel, with
// the fields Slack sends (is_enterprise_install is the string "false", as
// Slack sends it over Socket Mode). It carries a fresh trigger_id and a
// response_url served by the fake.
func (s *Server) SlashCommand(user, channel, command, text string) Payload {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Payload{
		"token":                 VerificationToken,
		"team_id":               TeamID,
		"team_domain":           TeamDomain,
		"channel_id":            channel,
		"channel_name":          s.channelName(channel),
		"user_id":               user,
		"user_name":             s.userName(user),
		"command":               command,
		"text":                  text,
		"api_app_id":            AppID,
		"is_enterprise_install": "false",
		"response_url":          s.responseURLLocked(channel, "", user),
		"trigger_id":            s.issueTriggerLocked(user),
	}
}

// FromTeam returns a copy of p as if it came from another workspace:
// every team id in it (team_id, team.id, user.team_id) is team.
func (p Payload) FromTeam(team string) Payload {
	var c Payload
	_ = json.Unmarshal(p.JSON(), &c)
	if _, ok := c["team_id"]; ok {
		c["team_id"] = team
	}
	for _, k := range []string{"team", "user"} {
		if m, ok := c[k].(map[string]any); ok {
			if _, ok := m["id"]; ok && k == "team" {
				m["id"] = team
			}
			if _, ok := m["team_id"]; ok {
				m["team_id"] = team
			}
		}
	}
	if as, ok := c["authorizations"].([]any); ok {
		for _, a := range as {
			if m, ok := a.(map[string]any); ok {
				m["team_id"] = team
			}
		}
	}
	return c
}

// userObject is the "user" object of interaction payloads.
func (s *Server) userObject(user string) map[string]any {
	return map[string]any{"id": user, "username": s.userName(user), "name": s.userName(user), "team_id": TeamID}
}

func teamObject() map[string]any { return map[string]any{"id": TeamID, "domain": TeamDomain} }
