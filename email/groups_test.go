package email_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/email"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// directory is a hitl.Directory over a map; a group not in it cannot be
// read.
type directory struct{ groups map[string][]string }

func (d *directory) GroupMembers(_ context.Context, id string) ([]string, error) {
	m, ok := d.groups[id]
	if !ok {
		return nil, errors.New("usergroups.users.list: no_such_subteam")
	}
	return m, nil
}

// TestMailerGroups: a reminder of a question assigned to a user group,
// and its escalation to another, reach each member by email once, as the
// group is when the mail is made: not the person who asked, not twice
// a person who is in two of its groups or also named alone.
func TestMailerGroups(t *testing.T) {
	ctx := principaltest.As(context.Background(), "api:ci")
	clock := clocktest.New(t0)
	svc := service.NewService(memstore.New(), service.ServiceConfig{Notifier: notify.New(), Clock: clock,
		Reminders: hitl.ReminderPolicies{hitl.Blocking: {Every: []hitl.Duration{hitl.Duration(10 * time.Minute)},
			EscalateAfter: hitl.Duration(20 * time.Minute), EscalateTo: []string{"S0LEADS", "U0CAROL"}}}})
	addresses := map[string]string{"U0ALICE": "alice@example.com", "U0BOB": "bob@example.com", "U0CAROL": "carol@example.com",
		"U0DAN": "dan@example.com", "U0ASKER": "asker@example.com"}
	dir := &directory{groups: map[string][]string{"S0OPS": {"U0ALICE", "U0BOB", "U0ASKER"}, "S0LEADS": {"U0BOB", "U0DAN"}}}
	var logs bytes.Buffer
	newMailer := func(t *testing.T, dir hitl.Directory) (*fakeSMTP, *email.Mailer) {
		t.Helper()
		fake, url := startSMTP(t, 0)
		send, err := email.SMTP(url, "hitl@example.com", 5*time.Second)
		require.NoError(t, err)
		return fake, email.New(email.Config{Send: send, Clock: clock, Addresses: addresses, Directory: dir,
			Logger: slog.New(slog.NewTextHandler(&logs, nil))}, serviceOf(svc), memstore.NewMailOutbox())
	}
	asker := auth.TokenPrincipal("ci", []auth.Scope{auth.ScopeAsk}, "U0ASKER")
	_, _, err := svc.Questions.Create(auth.WithPrincipal(ctx, asker), "run-1", hitl.NewQuestion{Question: "Deploy v2 to prod?", ResponseType: hitl.BooleanResponse,
		Assignees: []string{"S0OPS", "U0ALICE"}})
	require.NoError(t, err)
	// sendAll mails what is due and returns who got the mails about
	// question text about, by the start of their subject.
	sendAll := func(t *testing.T, fake *fakeSMTP, m *email.Mailer, about string) map[string][]string {
		t.Helper()
		_, err := m.Project(ctx)
		require.NoError(t, err)
		_, err = m.Send(ctx)
		require.NoError(t, err)
		bySubject := map[string][]string{}
		for _, r := range fake.got() {
			s := r.msg.Header.Get("Subject")
			if !strings.Contains(s, about) {
				continue
			}
			bySubject[s[:10]] = append(bySubject[s[:10]], r.to...)
		}
		return bySubject
	}

	t.Run("each member once, never the asker", func(t *testing.T) {
		fake, m := newMailer(t, dir)
		clock.Set(t0.Add(10*time.Minute + time.Second))
		_, err := svc.Questions.SweepReminders(ctx)
		require.NoError(t, err)
		got := sendAll(t, fake, m, "Deploy")
		assert.ElementsMatch(t, []string{"alice@example.com", "bob@example.com"}, got["Reminder: "], "the group's members and the assignee, each once")

		dir.groups["S0LEADS"] = append(dir.groups["S0LEADS"], "U0ALICE") // the group as it is when the escalation is mailed
		clock.Set(t0.Add(20*time.Minute + time.Second))
		_, err = svc.Questions.SweepReminders(ctx)
		require.NoError(t, err)
		got = sendAll(t, fake, m, "Deploy")
		assert.ElementsMatch(t, []string{"bob@example.com", "dan@example.com", "alice@example.com", "carol@example.com"}, got["Escalated "],
			"the escalation to the group's members now and the person it added")
		assert.Len(t, got["Reminder: "], 2, "nothing sent twice")
	})

	t.Run("without a directory a group's members get nothing, and the log says so", func(t *testing.T) {
		logs.Reset()
		fake, m := newMailer(t, nil)
		_, _, err := svc.Questions.Create(auth.WithPrincipal(ctx, asker), "run-1", hitl.NewQuestion{Question: "Rotate the key?", ResponseType: hitl.BooleanResponse,
			Assignees: []string{"S0OPS", "U0CAROL"}})
		require.NoError(t, err)
		clock.Set(t0.Add(31 * time.Minute)) // the new question's first reminder
		_, err = svc.Questions.SweepReminders(ctx)
		require.NoError(t, err)
		got := sendAll(t, fake, m, "Rotate")
		assert.Equal(t, []string{"carol@example.com"}, got["Reminder: "])
		assert.Contains(t, logs.String(), "group=S0OPS")
	})
}
