package email_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/email"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeSMTP is a local SMTP server (go-smtp) that keeps what it receives
// and refuses the first refuse MAIL commands with 421.
type fakeSMTP struct {
	mu       sync.Mutex
	refuse   int
	received []received
}

type received struct {
	from string
	to   []string
	msg  *mail.Message
	body string
}

type session struct {
	srv  *fakeSMTP
	from string
	to   []string
}

func (s *session) Reset()        { s.from, s.to = "", nil }
func (s *session) Logout() error { return nil }
func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	s.srv.mu.Lock()
	defer s.srv.mu.Unlock()
	if s.srv.refuse > 0 {
		s.srv.refuse--
		return &smtp.SMTPError{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try again later"}
	}
	s.from = from
	return nil
}
func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error { s.to = append(s.to, to); return nil }
func (s *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	body, err := io.ReadAll(msg.Body)
	if err != nil {
		return err
	}
	s.srv.mu.Lock()
	defer s.srv.mu.Unlock()
	s.srv.received = append(s.srv.received, received{s.from, s.to, msg, string(body)})
	return nil
}

func (f *fakeSMTP) got() []received {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]received(nil), f.received...)
}

// startSMTP starts the fake on 127.0.0.1 and returns it and its URL.
func startSMTP(t *testing.T, refuse int) (*fakeSMTP, string) {
	t.Helper()
	f := &fakeSMTP{refuse: refuse}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &session{srv: f}, nil }))
	srv.Domain = "localhost"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return f, "smtp://" + ln.Addr().String()
}

var t0 = time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)

func TestMailer(t *testing.T) {
	ctx := principaltest.As(context.Background(), "api:ci")
	fake, url := startSMTP(t, 1)
	send, err := email.SMTP(url, "hitl@example.com", 5*time.Second)
	require.NoError(t, err)
	clock := clocktest.New(t0)
	svc := service.NewService(memstore.New(), service.ServiceConfig{Notifier: notify.New(), Clock: clock,
		Reminders: hitl.ReminderPolicies{
			hitl.Blocking:    {Every: []hitl.Duration{hitl.Duration(10 * time.Minute)}},
			hitl.NonBlocking: {Every: []hitl.Duration{hitl.Duration(10 * time.Minute)}},
		}})
	box := memstore.NewMailOutbox()
	var lookups []string
	m := email.New(email.Config{Send: send, Clock: clock, WebURL: "https://hitl.example.com/",
		Addresses: map[string]string{"U0ALICE": "alice@example.com"},
		Lookup: func(_ context.Context, user string) (string, error) {
			lookups = append(lookups, user)
			if user == "U0BOB" {
				return "bob@example.com", nil // from the Slack profile
			}
			return "", nil
		},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, serviceOf(svc), box)

	q, _, err := svc.Questions.Create(ctx, "run-1", hitl.NewQuestion{Question: "Deploy v2 to prod?", ResponseType: hitl.BooleanResponse,
		Assignees: []string{"U0ALICE", "U0BOB", "U0NOADDR"}})
	require.NoError(t, err)
	fyi, _, err := svc.Questions.Create(ctx, "run-1", hitl.NewQuestion{Question: "FYI", Type: hitl.NonBlocking, DefaultResponse: &hitl.Response{Value: "ok"}})
	require.NoError(t, err)
	clock.Add(10 * time.Minute)
	n, err := svc.Questions.SweepReminders(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, n, "both reminded in Slack")
	_, err = m.Project(ctx)
	require.NoError(t, err)

	sent, err := m.Send(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, sent, "the first mail was refused; the second went")
	assert.NotContains(t, lookups, "U0ALICE", "the config map beats the Slack profile")
	clock.Add(29 * time.Second)
	sent, err = m.Send(ctx)
	require.NoError(t, err)
	assert.Equal(t, 0, sent, "not before its backoff")
	clock.Add(time.Second)
	sent, err = m.Send(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, sent, "retried from the outbox after the refusal")
	sent, err = m.Send(ctx)
	require.NoError(t, err)
	assert.Equal(t, 0, sent, "once each")

	got := fake.got()
	require.Len(t, got, 2)
	var to []string
	for _, r := range got {
		to = append(to, r.to...)
		assert.Equal(t, "hitl@example.com", r.from)
		assert.Contains(t, r.msg.Header.Get("Subject"), "Reminder: Question waiting for you: Deploy v2 to prod?")
		assert.Contains(t, r.body, "> Deploy v2 to prod?")
		assert.Contains(t, r.body, "Open it: https://hitl.example.com/q/"+q.ID, "the link to the question")
		assert.NotContains(t, r.body, fyi.ID)
	}
	assert.ElementsMatch(t, []string{"alice@example.com", "bob@example.com"}, to, "nobody without an address; no mail for a non-blocking question")
	due, err := box.ClaimMail(ctx, clock.Now().Add(24*time.Hour), clock.Now().Add(25*time.Hour), 0)
	require.NoError(t, err)
	assert.Empty(t, due, "the outbox is empty")
}

func TestMailerSettledMeanwhile(t *testing.T) {
	ctx := principaltest.As(context.Background(), "api:ci")
	fake, url := startSMTP(t, 0)
	send, err := email.SMTP(url, "hitl@example.com", 5*time.Second)
	require.NoError(t, err)
	clock := clocktest.New(t0)
	svc := service.NewService(memstore.New(), service.ServiceConfig{Notifier: notify.New(), Clock: clock,
		Reminders: hitl.ReminderPolicies{hitl.Approval: {EscalateAfter: hitl.Duration(5 * time.Minute), EscalateTo: []string{"U0LEAD"}}}})
	m := email.New(email.Config{Send: send, Clock: clock, Addresses: map[string]string{"U0LEAD": "lead@example.com"},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, serviceOf(svc), memstore.NewMailOutbox())
	q, _, err := svc.Questions.Create(ctx, "run-1", hitl.NewQuestion{Question: "Delete the bucket?", Type: hitl.Approval})
	require.NoError(t, err)
	clock.Add(5 * time.Minute)
	_, err = svc.Questions.SweepReminders(ctx)
	require.NoError(t, err)
	_, err = m.Project(ctx)
	require.NoError(t, err)
	_, err = svc.Questions.Answer(principaltest.As(context.Background(), "admin:test"), q.ID, hitl.Response{Value: "deny"})
	require.NoError(t, err)
	sent, err := m.Send(ctx)
	require.NoError(t, err)
	assert.Equal(t, 0, sent, "a question settled before its mail went is mailed nothing")
	assert.Empty(t, fake.got())
	assert.True(t, strings.HasPrefix(email.Link("https://x.example/", "q_1"), "https://x.example/q/q_1"))
}

// serviceOf is the mailer's part of svc, as the wiring fills it
// (cmd/hitl/adapters.go).
func serviceOf(svc *service.Service) email.Service {
	return email.Service{Log: svc.Log, Questions: svc.Questions, Runs: svc.Runs}
}
