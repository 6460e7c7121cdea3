package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/email"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/pgtest"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withEmail sends this replica's mail to the SMTP server at url, looking
// for due mail every few milliseconds.
func withEmail(url string) func(*config.Config, *Main) {
	return func(c *config.Config, m *Main) {
		c.Email = config.Email{SMTPURL: url, From: "hitl@example.com",
			Addresses: map[string]string{"U0ALICE": "alice@example.com", "U0BOB": "bob@example.com"}}
		c.Web.URL = "https://hitl.example.com"
		m.MailEvery = 5 * time.Millisecond
	}
}

// mailDrained waits until the shared mail outbox has turned every event
// into mail and holds none: no mail is queued or being sent, and none is
// still to come of the events so far.
func mailDrained(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		var queued, cursor, last int64
		err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM mail),
			coalesce((SELECT convert_from(value, 'UTF8')::bigint FROM meta WHERE key = 'mail_cursor'), 0),
			coalesce((SELECT max(seq) FROM events), 0)`).Scan(&queued, &cursor, &last)
		require.NoError(t, err)
		if queued == 0 && cursor >= last {
			return
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("the mail outbox did not drain: %d queued, cursor %d of %d events", queued, cursor, last)
		}
	}
}

// Two replicas on one database, both running the mailer (and both
// sweeping reminders): each reminder is mailed once, to each person.
func TestReplicasMailEachReminderOnce(t *testing.T) {
	ctx, cancel := context.WithTimeout(principaltest.As(context.Background(), "admin:test"), 60*time.Second)
	defer cancel()
	url, key := pgtest.DB(t), keyFile(t)
	box, smtpURL := startMailbox(t, 0)
	clock := clocktest.New(remindT0)
	replica := func() *Main {
		return startReplica(t, url, key, withClock(clock), withReminders, unlimited, withEmail(smtpURL))
	}
	r1, r2 := replica(), replica()

	agent := principaltest.As(context.Background(), "api:agent")
	const n = 6
	hour := 60.0
	var qs []*hitl.Question
	for i := range n {
		m := []*Main{r1, r2}[i%2]
		q, _, err := m.Service.Questions.Create(agent, fmt.Sprintf("run-%d", i%2), hitl.NewQuestion{Question: fmt.Sprintf("Deploy build %d?", i),
			Assignees: []string{"U0ALICE", "U0BOB"}, TimeoutMinutes: &hour})
		require.NoError(t, err)
		qs = append(qs, q)
	}
	clock.Set(remindT0.Add(10*time.Minute + time.Second))
	var wg sync.WaitGroup
	for _, m := range []*Main{r1, r2} {
		wg.Go(func() {
			_, err := m.Service.Questions.SweepReminders(ctx)
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	box.until(t, ctx, "a mail per reminder and person", func(b *mailbox) bool { return len(b.got) >= 2*n })
	mailDrained(t, ctx, url)

	box.mu.Lock()
	defer box.mu.Unlock()
	got := map[string]int{}
	for i, msg := range box.got {
		for _, q := range qs {
			if strings.Contains(msg.Header.Get("Subject"), q.Question) {
				got[box.to[i]+" "+q.ID]++
			}
		}
	}
	require.Len(t, box.to, len(box.got), "one recipient a message")
	for _, q := range qs {
		for _, to := range []string{"alice@example.com", "bob@example.com"} {
			assert.Equal(t, 1, got[to+" "+q.ID], "%s mailed about %s", to, q.ID)
		}
	}
	assert.Len(t, box.got, 2*n, "nothing mailed twice")
}

// stalled is an SMTP server that takes a message's MAIL command and never
// answers it: a replica sending to it is stuck mid-send.
type stalled struct {
	entered chan struct{} // closed at the first MAIL
	once    sync.Once
	release chan struct{}
}

type stalledSession struct{ s *stalled }

func (s stalledSession) Reset()        {}
func (s stalledSession) Logout() error { return nil }
func (s stalledSession) Mail(string, *smtp.MailOptions) error {
	s.s.once.Do(func() { close(s.s.entered) })
	<-s.s.release
	return &smtp.SMTPError{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "going away"}
}
func (s stalledSession) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (s stalledSession) Data(io.Reader) error                 { return nil }

func startStalled(t *testing.T) (*stalled, string) {
	t.Helper()
	st := &stalled{entered: make(chan struct{}), release: make(chan struct{})}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return stalledSession{st}, nil }))
	srv.Domain = "localhost"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { close(st.release); _ = srv.Close() })
	return st, "smtp://" + ln.Addr().String()
}

// A replica that stops in the middle of sending a mail leaves it claimed
// until the lease runs out; then another replica sends it, once.
func TestReplicasMailAfterAClaimRunsOut(t *testing.T) {
	ctx, cancel := context.WithTimeout(principaltest.As(context.Background(), "admin:test"), 60*time.Second)
	defer cancel()
	url, key := pgtest.DB(t), keyFile(t)
	st, stalledURL := startStalled(t)
	box, smtpURL := startMailbox(t, 0)
	clock := clocktest.New(remindT0)
	dying := startMainNoCleanup(t, func(c *config.Config, _ *Main) { c.DB, c.SealKeyFile = url, key },
		withClock(clock), withReminders, withEmail(stalledURL))
	hour := 60.0
	q, _, err := dying.Service.Questions.Create(principaltest.As(context.Background(), "api:agent"), "run-1",
		hitl.NewQuestion{Question: "Rotate the keys?", Assignees: []string{"U0ALICE"}, TimeoutMinutes: &hour})
	require.NoError(t, err)
	clock.Set(remindT0.Add(10*time.Minute + time.Second))
	_, err = dying.Service.Questions.SweepReminders(ctx)
	require.NoError(t, err)
	select {
	case <-st.entered: // the dying replica claimed the mail and is sending it
	case <-ctx.Done():
		t.Fatal("the first replica never tried to send the mail")
	}
	live := startReplica(t, url, key, withClock(clock), withReminders, withEmail(smtpURL))
	require.NoError(t, dying.Close(), "the first replica stops mid-send")

	clock.Add(email.ClaimLease - time.Second)
	sent, err := live.mailer.Send(ctx)
	require.NoError(t, err)
	assert.Zero(t, sent, "the claim still holds")
	clock.Add(time.Second)
	box.until(t, ctx, "the mail sent by the other replica", func(b *mailbox) bool { return len(b.got) == 1 })
	mailDrained(t, ctx, url)
	box.mu.Lock()
	defer box.mu.Unlock()
	require.Len(t, box.got, 1)
	assert.Contains(t, box.got[0].Header.Get("Subject"), q.Question)
	assert.Equal(t, []string{"alice@example.com"}, box.to)
}
