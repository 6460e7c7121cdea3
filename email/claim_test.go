package email_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

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

// heldSender is a Sender whose calls each wait for a verdict.
type heldSender struct {
	entered chan struct{}
	verdict chan error
}

func newHeldSender() *heldSender {
	return &heldSender{entered: make(chan struct{}, 1), verdict: make(chan error, 1)}
}

func (h *heldSender) send(ctx context.Context, _ string, _ email.Message) error {
	h.entered <- struct{}{}
	select {
	case err := <-h.verdict:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func within(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// TestMailerClaimRanOut: a mailer held up past its claim's lease (its
// SMTP send slow, then failing) finds the mail claimed by another mailer
// since. Its retry is refused by the outbox; it logs that and neither
// reschedules the mail nor sends it again, and the other mailer's claim
// goes on undisturbed.
func TestMailerClaimRanOut(t *testing.T) {
	ctx := principaltest.As(context.Background(), "api:ci")
	clock := clocktest.New(t0)
	svc := service.NewService(memstore.New(), service.ServiceConfig{Notifier: notify.New(), Clock: clock,
		Reminders: hitl.ReminderPolicies{hitl.Blocking: {Every: []hitl.Duration{hitl.Duration(10 * time.Minute)}}}})
	box := memstore.NewMailOutbox()
	var logsA bytes.Buffer // read once A's Send returned
	a, b := newHeldSender(), newHeldSender()
	mailer := func(s *heldSender, logs io.Writer) *email.Mailer {
		return email.New(email.Config{Send: s.send, Clock: clock, Addresses: map[string]string{"U0ALICE": "alice@example.com"},
			Logger: slog.New(slog.NewTextHandler(logs, nil))}, serviceOf(svc), box)
	}
	ma, mb := mailer(a, &logsA), mailer(b, io.Discard)
	_, _, err := svc.Questions.Create(ctx, "run-1", hitl.NewQuestion{Question: "Ship it?", ResponseType: hitl.BooleanResponse, Assignees: []string{"U0ALICE"}})
	require.NoError(t, err)
	clock.Add(10 * time.Minute)
	_, err = svc.Questions.SweepReminders(ctx)
	require.NoError(t, err)
	_, err = ma.Project(ctx)
	require.NoError(t, err)

	type result struct {
		sent int
		err  error
	}
	sendIn := func(m *email.Mailer) <-chan result {
		ch := make(chan result, 1)
		go func() {
			n, err := m.Send(ctx)
			ch <- result{n, err}
		}()
		return ch
	}
	doneA := sendIn(ma)
	within(t, a.entered, "mailer A to claim the mail and start sending")
	clock.Add(email.ClaimLease) // A is held up past its lease
	doneB := sendIn(mb)
	within(t, b.entered, "mailer B to claim the mail A's lease left")

	a.verdict <- errors.New("421 try again later")
	ra := <-doneA
	require.NoError(t, ra.err, "the refusal is the outbox saying the mail is B's: not an error of A's loop")
	assert.Zero(t, ra.sent)
	assert.Contains(t, logsA.String(), "claim ran out", "A logs that it lost the mail")
	due, err := box.ClaimMail(ctx, clock.Now().Add(email.ClaimLease-time.Nanosecond), clock.Now().Add(2*email.ClaimLease), 0)
	require.NoError(t, err)
	assert.Empty(t, due, "A's failure did not make B's mail due again (it would be sent a second time)")

	b.verdict <- nil
	rb := <-doneB
	require.NoError(t, rb.err)
	assert.Equal(t, 1, rb.sent, "B sends it, once")
	clock.Add(time.Hour)
	for _, m := range []*email.Mailer{ma, mb} {
		n, err := m.Send(ctx)
		require.NoError(t, err)
		assert.Zero(t, n, "nothing left to send")
	}
}
