package slackfake

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Call is one Web API request the fake received, with its outcome.
type Call struct {
	Method      string         // Web API method, like "chat.postMessage"
	HTTPMethod  string         // GET or POST
	ContentType string         // request Content-Type
	Params      url.Values     // form, query and JSON top-level fields (non-strings JSON-encoded)
	JSON        map[string]any // decoded JSON body; nil for form and GET requests
	Body        []byte         // raw request body
	At          time.Time      // the fake clock when the call arrived

	Status   int    // HTTP status answered
	OK       bool   // the answer was {"ok":true}
	Error    string // the "error" of an {"ok":false} answer; "" otherwise
	Response []byte // the body answered
}

// Param returns the first value of a parameter.
func (c Call) Param(key string) string { return c.Params.Get(key) }

// Rejection is a Web API call the fake answered with {"ok":false}.
type Rejection struct {
	Method   string
	Error    string   // error code, like "invalid_blocks"
	Messages []string // response_metadata.messages, like "[ERROR] must be less than 3001 characters [json-pointer:/blocks/0/text/text]"
	Call     Call
}

// String renders the rejection as "method: error: messages".
func (r Rejection) String() string {
	if len(r.Messages) == 0 {
		return fmt.Sprintf("%s: %s", r.Method, r.Error)
	}
	return fmt.Sprintf("%s: %s: %s", r.Method, r.Error, strings.Join(r.Messages, "; "))
}

// Message is the current state of a message in a conversation.
type Message struct {
	Channel  string
	TS       string
	ThreadTS string          // parent ts for thread replies; "" otherwise
	User     string          // author; BotUserID for the bot's messages
	BotID    string          // set for bot-authored messages
	Text     string          // current text
	Blocks   json.RawMessage // current blocks; nil if none
	Metadata json.RawMessage // message metadata, if any
	Updated  bool            // chat.update changed it at least once
	Updates  int             // number of chat.update calls applied
	Deleted  bool

	// Ephemeral messages only: the user who sees it.
	EphemeralUser string
}

// Reaction is one reaction added with reactions.add.
type Reaction struct {
	Channel   string
	Timestamp string
	Name      string
	User      string
	At        time.Time
}

// message is the stored, mutable form of Message.
type message struct {
	Message
	ClientMsgID string
	Replies     int
	history     []Message // earlier versions, oldest first
}

// snapshot keeps the current version before an update changes it.
func (m *message) snapshot() { m.history = append(m.history, m.Message) }

// Calls returns the recorded calls to method, in arrival order. An empty
// method returns every call.
func (s *Server) Calls(method string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Call
	for _, c := range s.calls {
		if method == "" || c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// WaitForCall returns the first recorded call to method (any method if
// empty) for which match returns true (nil matches everything), waiting for
// it if it has not happened yet. Calls already recorded count, so use match
// to tell a later call from an earlier one.
func (s *Server) WaitForCall(ctx context.Context, method string, match func(Call) bool) (Call, error) {
	var found Call
	err := s.waitFor(ctx, func() bool {
		for _, c := range s.calls {
			if (method == "" || c.Method == method) && (match == nil || match(c)) {
				found = c
				return true
			}
		}
		return false
	})
	if err != nil {
		return Call{}, fmt.Errorf("slackfake: waiting for a %s call: %w", orAny(method), err)
	}
	return found, nil
}

// WaitForCalls waits until at least n calls to method have been recorded
// and returns them all.
func (s *Server) WaitForCalls(ctx context.Context, method string, n int) ([]Call, error) {
	err := s.waitFor(ctx, func() bool {
		k := 0
		for _, c := range s.calls {
			if method == "" || c.Method == method {
				k++
			}
		}
		return k >= n
	})
	if err != nil {
		return s.Calls(method), fmt.Errorf("slackfake: waiting for %d %s calls (have %d): %w", n, orAny(method), len(s.Calls(method)), err)
	}
	return s.Calls(method), nil
}

// Rejections returns every {"ok":false} answer given so far.
func (s *Server) Rejections() []Rejection {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.rejections)
}

// Messages returns the current state of the messages in channel (top-level
// messages and thread replies), oldest first. Ephemeral messages are in
// Ephemerals.
func (s *Server) Messages(channel string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Message
	for _, m := range s.messages[channel] {
		if !m.Deleted {
			out = append(out, m.Message)
		}
	}
	return out
}

// Message returns one message by channel and ts.
func (s *Server) Message(channel, ts string) (Message, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m := s.findMessage(channel, ts); m != nil {
		return m.Message, true
	}
	return Message{}, false
}

// WaitForMessage waits until channel holds a message for which match is true
// and returns it.
func (s *Server) WaitForMessage(ctx context.Context, channel string, match func(Message) bool) (Message, error) {
	var found Message
	err := s.waitFor(ctx, func() bool {
		for _, m := range s.messages[channel] {
			if !m.Deleted && (match == nil || match(m.Message)) {
				found = m.Message
				return true
			}
		}
		return false
	})
	if err != nil {
		return Message{}, fmt.Errorf("slackfake: waiting for a message in %s: %w", channel, err)
	}
	return found, nil
}

// Ephemerals returns the ephemeral messages posted with chat.postEphemeral.
func (s *Server) Ephemerals() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.ephemerals)
}

// Reactions returns the reactions added so far.
func (s *Server) Reactions() []Reaction {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reactions)
}

// findMessage returns the stored message or nil. s.mu must be held.
func (s *Server) findMessage(channel, ts string) *message {
	for _, m := range s.messages[channel] {
		if m.TS == ts && !m.Deleted {
			return m
		}
	}
	return nil
}

// record stores a finished call and, for {"ok":false} answers, a rejection.
// It returns the rejection that should fail the test, if any. s.mu must be
// held.
func (s *Server) recordLocked(c Call, messages []string) *Rejection {
	s.calls = append(s.calls, c)
	var failing *Rejection
	if c.Status == 200 && !c.OK && c.Error != "" {
		r := Rejection{Method: c.Method, Error: c.Error, Messages: messages, Call: c}
		s.rejections = append(s.rejections, r)
		if s.cfg.failOnReject && !s.cfg.allowedRejects[c.Error] {
			failing = &r
		}
	}
	s.notifyLocked()
	return failing
}

func orAny(method string) string {
	if method == "" {
		return "any"
	}
	return method
}
