package slackfake

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// ErrNoAck is returned by the Send methods when the client does not ack an
// envelope within the ack deadline (3 s by default, like Slack).
var ErrNoAck = errors.New("slackfake: envelope not acknowledged within the deadline")

// Envelope is one Socket Mode message from Slack to the app.
type Envelope struct {
	Type                   string          // "events_api", "interactive" or "slash_commands"
	EnvelopeID             string          // the ID the client must ack
	Payload                json.RawMessage // the event_callback, interaction or command
	AcceptsResponsePayload bool
	RetryAttempt           int    // events_api only: 0 on first delivery
	RetryReason            string // events_api only: "" on first delivery, e.g. "timeout" on retries
}

// MarshalJSON writes the envelope as Slack does: retry_attempt and
// retry_reason appear on events_api envelopes (and on any redelivery).
func (e Envelope) MarshalJSON() ([]byte, error) {
	m := map[string]any{
		"envelope_id":              e.EnvelopeID,
		"payload":                  e.Payload,
		"type":                     e.Type,
		"accepts_response_payload": e.AcceptsResponsePayload,
	}
	if e.Type == "events_api" || e.RetryAttempt > 0 {
		m["retry_attempt"] = e.RetryAttempt
		m["retry_reason"] = e.RetryReason
	}
	return json.Marshal(m)
}

// Ack is a client's acknowledgement of an envelope.
type Ack struct {
	EnvelopeID string
	Payload    json.RawMessage // the ack's payload; nil when the client sent none
	Conn       int             // connection it arrived on (1 is the first connection)
	Envelope   Envelope        // the envelope acked (set on Send* results)
	Latency    time.Duration   // time from sending the envelope to the ack (Send* results)
	Late       bool            // in Acks(): nobody was waiting for it any more
}

// conn is one Socket Mode WebSocket connection.
type conn struct {
	id        int
	ws        *websocket.Conn
	writeMu   sync.Mutex
	done      chan struct{}
	closeOnce sync.Once
	ready     bool // hello sent
}

// send writes one JSON message.
func (c *conn) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_ = c.ws.SetWriteDeadline(time.Now().Add(5 * time.Second))
	return c.ws.WriteMessage(websocket.TextMessage, b)
}

// close sends a close frame and closes the connection, once.
func (c *conn) close() {
	c.closeOnce.Do(func() {
		close(c.done)
		_ = c.ws.WriteControl(websocket.CloseMessage,
			websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
		_ = c.ws.Close()
	})
}

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// serveSocket accepts a WebSocket with a ticket from apps.connections.open,
// says hello, pings, and reads acks until the connection ends.
func (s *Server) serveSocket(w http.ResponseWriter, r *http.Request) {
	ticket := r.URL.Query().Get("ticket")
	s.mu.Lock()
	valid := s.tickets[ticket] && !s.closed
	delete(s.tickets, ticket)
	s.mu.Unlock()
	if !valid {
		http.Error(w, "invalid or used ticket", http.StatusUnauthorized)
		return
	}
	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	c := &conn{ws: ws, done: make(chan struct{})}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = ws.Close()
		return
	}
	s.connSeq++
	c.id = s.connSeq
	s.conns[c.id] = c
	active := len(s.conns)
	s.sockGroup.Add(2)
	s.mu.Unlock()

	hello := map[string]any{
		"type":            "hello",
		"num_connections": active,
		"connection_info": map[string]any{"app_id": AppID},
		"debug_info": map[string]any{"host": fmt.Sprintf("applink-slackfake-%d", c.id),
			"build_number": 1, "approximate_connection_time": 18060},
	}
	if c.send(hello) == nil {
		_ = ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(time.Second))
		s.mu.Lock()
		c.ready = true
		s.hellos++
		s.notifyLocked()
		s.mu.Unlock()
	}
	go s.pingLoop(c)
	defer s.sockGroup.Done()
	for {
		_, data, err := ws.ReadMessage()
		if err != nil {
			break
		}
		s.receiveAck(c, data)
	}
	s.mu.Lock()
	delete(s.conns, c.id)
	s.notifyLocked()
	s.mu.Unlock()
	c.close()
}

// pingLoop pings the client; slack-go reconnects if pings stop for 30 s.
func (s *Server) pingLoop(c *conn) {
	defer s.sockGroup.Done()
	t := time.NewTicker(s.cfg.pingInterval)
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
			_ = c.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(time.Second))
		}
	}
}

// receiveAck records a client message {"envelope_id":...,"payload":...} and
// hands it to the waiting sender.
func (s *Server) receiveAck(c *conn, data []byte) {
	var msg struct {
		EnvelopeID string          `json:"envelope_id"`
		Payload    json.RawMessage `json:"payload"`
	}
	if json.Unmarshal(data, &msg) != nil || msg.EnvelopeID == "" {
		return
	}
	ack := Ack{EnvelopeID: msg.EnvelopeID, Payload: msg.Payload, Conn: c.id}
	s.mu.Lock()
	defer s.mu.Unlock()
	ch, waiting := s.pending[msg.EnvelopeID]
	if waiting {
		delete(s.pending, msg.EnvelopeID)
		ch <- ack // buffered, one ack per registration
	}
	ack.Late = !waiting
	s.acks = append(s.acks, ack)
	s.notifyLocked()
}

// newestConnLocked is the connection envelopes go to: the newest one that
// got its hello.
func (s *Server) newestConnLocked() *conn {
	var best *conn
	for _, c := range s.conns {
		if c.ready && (best == nil || c.id > best.id) {
			best = c
		}
	}
	return best
}

// deliver sends env on the newest connection (waiting for one until ctx
// ends) and waits for its ack until the ack deadline.
func (s *Server) deliver(ctx context.Context, env Envelope) (Ack, error) {
	return s.deliverOn(ctx, env, s.newestConnLocked)
}

// deliverOn is deliver on the connection pick names (called with s.mu
// held; nil while there is none).
func (s *Server) deliverOn(ctx context.Context, env Envelope, pick func() *conn) (Ack, error) {
	ch := make(chan Ack, 1)
	forget := func() {
		s.mu.Lock()
		if s.pending[env.EnvelopeID] == ch {
			delete(s.pending, env.EnvelopeID)
		}
		s.mu.Unlock()
	}
	var start time.Time
	for {
		var c *conn
		err := s.waitFor(ctx, func() bool {
			c = pick()
			return c != nil || s.closed
		})
		if err != nil || c == nil {
			return Ack{Envelope: env}, fmt.Errorf("slackfake: no Socket Mode connection to send %s: %w", env.Type, errors.Join(err, errClosedIf(c == nil)))
		}
		s.mu.Lock()
		s.pending[env.EnvelopeID] = ch
		s.mu.Unlock()
		start = time.Now()
		if err := c.send(env); err == nil {
			break
		}
		forget()
		s.retire(c) // the connection is dying: try the next one
	}
	timer := time.NewTimer(s.cfg.ackTimeout)
	defer timer.Stop()
	select {
	case a := <-ch:
		a.Envelope, a.Latency = env, time.Since(start)
		return a, nil
	case <-timer.C:
		forget()
		return Ack{Envelope: env}, fmt.Errorf("%w (%s, envelope %s)", ErrNoAck, s.cfg.ackTimeout, env.EnvelopeID)
	case <-ctx.Done():
		forget()
		return Ack{Envelope: env}, ctx.Err()
	}
}

// retire stops sending envelopes to c and closes it.
func (s *Server) retire(c *conn) {
	s.unready(c)
	c.close()
}

// unready stops sending envelopes to c.
func (s *Server) unready(c *conn) {
	s.mu.Lock()
	c.ready = false
	s.notifyLocked()
	s.mu.Unlock()
}

func errClosedIf(closed bool) error {
	if closed {
		return errors.New("server closed")
	}
	return nil
}

// SendEvent delivers an Events API event in an events_api envelope and
// returns the client's ack. payload is an event_callback (from MessageEvent,
// AppHomeOpened, ...) or a bare inner event, which gets wrapped in one.
func (s *Server) SendEvent(ctx context.Context, payload Payload) (Ack, error) {
	if payload["type"] != "event_callback" {
		payload = s.eventCallback(payload)
	}
	return s.send(ctx, "events_api", payload, false)
}

// SendInteractive delivers an interaction payload (BlockActions,
// ViewSubmission, ...) in an interactive envelope and returns the ack.
func (s *Server) SendInteractive(ctx context.Context, payload Payload) (Ack, error) {
	accepts := payload["type"] == "view_submission"
	ack, err := s.send(ctx, "interactive", payload, accepts)
	if err == nil && accepts {
		s.applyResponseAction(payload, ack) // respondview.go
	}
	return ack, err
}

// SendSlashCommand delivers a slash command (from SlashCommand) in a
// slash_commands envelope and returns the ack.
func (s *Server) SendSlashCommand(ctx context.Context, payload Payload) (Ack, error) {
	return s.send(ctx, "slash_commands", payload, true)
}

func (s *Server) send(ctx context.Context, typ string, payload Payload, accepts bool) (Ack, error) {
	b, err := json.Marshal(payload)
	if err != nil {
		return Ack{}, fmt.Errorf("slackfake: encoding payload: %w", err)
	}
	return s.deliver(ctx, Envelope{Type: typ, EnvelopeID: newUUID(), Payload: b, AcceptsResponsePayload: accepts})
}

// Redeliver sends env again with the same envelope_id, as Slack does when an
// ack is late: retry_attempt is set to retryAttempt and retry_reason to
// env.RetryReason, or "timeout" if that is empty.
func (s *Server) Redeliver(ctx context.Context, env Envelope, retryAttempt int) (Ack, error) {
	env.RetryAttempt = retryAttempt
	if env.RetryReason == "" {
		env.RetryReason = "timeout"
	}
	return s.deliver(ctx, env)
}

// RedeliverOn is Redeliver on connection connID (an Ack.Conn), as Slack
// does when it spreads an app's envelopes across its connections: each
// replica of an app holds its own. It waits until connID is ready.
func (s *Server) RedeliverOn(ctx context.Context, env Envelope, retryAttempt, connID int) (Ack, error) {
	env.RetryAttempt = retryAttempt
	if env.RetryReason == "" {
		env.RetryReason = "timeout"
	}
	return s.deliverOn(ctx, env, func() *conn {
		for _, c := range s.conns {
			if c.ready && c.id == connID {
				return c
			}
		}
		return nil
	})
}

// ReadyConnections lists the ids of the connections that got their hello
// and take envelopes, in no particular order.
func (s *Server) ReadyConnections() []int {
	var ids []int
	for _, c := range s.openConns(true) {
		ids = append(ids, c.id)
	}
	return ids
}

// Disconnect sends {"type":"disconnect","reason":reason,...} on every open
// connection and closes them, as Slack does before it recycles a socket
// ("refresh_requested", "warning", "link_disabled").
func (s *Server) Disconnect(reason string) {
	for _, c := range s.openConns(true) {
		s.unready(c)
		_ = c.send(map[string]any{"type": "disconnect", "reason": reason,
			"debug_info": map[string]any{"host": fmt.Sprintf("applink-slackfake-%d", c.id)}})
		c.close()
	}
}

// DropSockets closes every open connection abruptly, without a disconnect
// message, like a network failure.
func (s *Server) DropSockets() {
	for _, c := range s.openConns(false) {
		s.unready(c)
		_ = c.ws.Close()
	}
}

// openConns lists the open connections; with readyOnly, only those that
// got their hello and are not being retired.
func (s *Server) openConns(readyOnly bool) []*conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*conn, 0, len(s.conns))
	for _, c := range s.conns {
		if c.ready || !readyOnly {
			out = append(out, c)
		}
	}
	return out
}

// ActiveConnections is the number of open Socket Mode connections.
func (s *Server) ActiveConnections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// Connections is the number of Socket Mode connections that got a hello
// since the server started, closed ones included.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hellos
}

// WaitConnected waits until n connections in total have received their
// hello (so WaitConnected(2) after Disconnect waits for the reconnect).
func (s *Server) WaitConnected(ctx context.Context, n int) error {
	err := s.waitFor(ctx, func() bool { return s.hellos >= n })
	if err != nil {
		return fmt.Errorf("slackfake: waiting for connection #%d (have %d): %w", n, s.Connections(), err)
	}
	return nil
}

// Acks returns every ack received, in arrival order.
func (s *Server) Acks() []Ack {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Ack(nil), s.acks...)
}
