package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/mail"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mailbox is a local SMTP server (go-smtp) that refuses the first refuse
// MAIL commands and keeps every message it accepts.
type mailbox struct {
	mu      sync.Mutex
	refuse  int
	refused int
	got     []*mail.Message
	to      []string
	changed chan struct{}
}

type mailSession struct {
	box *mailbox
	to  []string
}

func (s *mailSession) Reset()        { s.to = nil }
func (s *mailSession) Logout() error { return nil }
func (s *mailSession) Mail(string, *smtp.MailOptions) error {
	s.box.mu.Lock()
	defer s.box.mu.Unlock()
	if s.box.refuse > 0 {
		s.box.refuse--
		s.box.refused++
		s.box.notify()
		return &smtp.SMTPError{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try again later"}
	}
	return nil
}
func (s *mailSession) Rcpt(to string, _ *smtp.RcptOptions) error { s.to = append(s.to, to); return nil }
func (s *mailSession) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	s.box.mu.Lock()
	defer s.box.mu.Unlock()
	s.box.got = append(s.box.got, msg)
	s.box.to = append(s.box.to, s.to...)
	s.box.notify()
	return nil
}

func (b *mailbox) notify() { close(b.changed); b.changed = make(chan struct{}) }

// until waits (with ctx's deadline) until cond holds of the mailbox.
func (b *mailbox) until(t *testing.T, ctx context.Context, what string, cond func(b *mailbox) bool) {
	t.Helper()
	for {
		b.mu.Lock()
		ok, ch := cond(b), b.changed
		b.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("mailbox: %s did not happen", what)
		}
	}
}

func startMailbox(t *testing.T, refuse int) (*mailbox, string) {
	t.Helper()
	b := &mailbox{refuse: refuse, changed: make(chan struct{})}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &mailSession{box: b}, nil }))
	srv.Domain = "localhost"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return b, "smtp://" + ln.Addr().String()
}

// TestEmailReminders: a reminder of a blocking question goes by email too,
// to the address config gives one person and the Slack profile the other,
// with the link to the question; the refused one is retried from the
// outbox once its backoff passed.
func TestEmailReminders(t *testing.T) {
	ctx, cancel := context.WithTimeout(principaltest.As(context.Background(), "admin:test"), 30*time.Second)
	defer cancel()
	box, url := startMailbox(t, 1)
	srv := slackfake.New(t, slackfake.FailOnReject(), slackfake.WithUserEmail("U0BOB", "bob@example.com"))
	clock := clocktest.New(remindT0)
	m := startMain(t, withSlack(srv), withClock(clock), withReminders, func(c *config.Config, m *Main) {
		c.Email = config.Email{SMTPURL: url, From: "hitl@example.com", Addresses: map[string]string{"U0ALICE": "alice@example.com"}}
		c.Web.URL = "https://hitl.example.com"
		m.MailEvery = 5 * time.Millisecond
	})
	require.NoError(t, srv.WaitConnected(ctx, 1))
	e := &slackEnv{ctx: ctx, m: m, srv: srv, api: client.NewClient(m.URL(), "")}
	hour := 60.0
	q, _ := e.ask(t, "mail-1", hitl.NewQuestion{Question: "Ship it?", ResponseType: hitl.BooleanResponse,
		Channel: testChannel, Assignees: []string{"U0ALICE", "U0BOB"}, TimeoutMinutes: &hour})
	e.posted(t, testChannel, q)

	clock.Set(remindT0.Add(10*time.Minute + time.Second))
	e.sweep(t)
	box.until(t, ctx, "one mail refused, one sent", func(b *mailbox) bool { return b.refused == 1 && len(b.got) == 1 })
	clock.Add(31 * time.Second) // the refused one's backoff
	box.until(t, ctx, "the refused mail retried", func(b *mailbox) bool { return len(b.got) == 2 })

	box.mu.Lock()
	defer box.mu.Unlock()
	assert.ElementsMatch(t, []string{"alice@example.com", "bob@example.com"}, box.to, "config's address, and the Slack profile's")
	for _, msg := range box.got {
		assert.Contains(t, msg.Header.Get("Subject"), "Reminder: Question waiting for you: Ship it?")
		body, err := io.ReadAll(msg.Body)
		require.NoError(t, err)
		assert.Contains(t, string(body), "https://hitl.example.com/q/"+q.ID)
	}
}
