package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/stretchr/testify/require"
)

// metaPages returns the first two pages of a bbolt file: its two meta
// pages, one of which every commit rewrites with the next transaction id
// (a commit that changes nothing included).
func metaPages(tb testing.TB, path string) []byte {
	tb.Helper()
	f, err := os.Open(path)
	require.NoError(tb, err)
	defer f.Close()
	b := make([]byte, 2*os.Getpagesize())
	_, err = io.ReadFull(f, b)
	require.NoError(tb, err)
	return b
}

// TestIdleServiceWritesNothing: once what happened has been delivered,
// the whole service — the sweeper (timeouts, reminders, sessions, refusal
// tallies, retention, learned rules, alert checks), the Slack outbox and
// its live run messages, the mailer, metrics scrapes, the web inbox and
// API reads — commits nothing to its bbolt file while time passes with
// nothing due.
func TestIdleServiceWritesNothing(t *testing.T) {
	ctx, cancel := context.WithTimeout(principaltest.As(context.Background(), "admin:test"), 60*time.Second)
	defer cancel()
	_, smtpURL := startMailbox(t, 0)
	srv := slackfake.New(t, slackfake.FailOnReject())
	clock := clocktest.New(remindT0)
	m := startMain(t, withSlack(srv), withClock(clock), withReminders, func(c *config.Config, m *Main) {
		c.Email = config.Email{SMTPURL: smtpURL, From: "hitl@example.com", Addresses: map[string]string{"U0ALICE": "alice@example.com"}}
		c.Slack.RunsChannel = "C0RUNS"
		c.SweepSchedule = "@every 1h" // the test sweeps itself, with the sweeper's own work
		m.MailEvery = time.Millisecond
	})
	require.NoError(t, srv.WaitConnected(ctx, 1))
	e := &slackEnv{ctx: ctx, m: m, srv: srv, api: client.NewClient(m.URL(), "")}

	// Something of every kind, none of it due: a pending question with
	// reminders (the first at 10 minutes), a settled one, and a run that
	// reported an iteration (its live message in C0RUNS).
	hour := 60.0
	pending, _ := e.ask(t, "idle-1", hitl.NewQuestion{Question: "Ship it?", ResponseType: hitl.BooleanResponse,
		Channel: testChannel, Assignees: []string{"U0ALICE"}, TimeoutMinutes: &hour})
	settled, _ := e.ask(t, "idle-1", hitl.NewQuestion{Question: "Which region?", Options: []hitl.Option{{ID: "eu", Label: "eu", Value: "eu"}},
		Channel: testChannel, TimeoutMinutes: &hour})
	_, err := m.Service.Questions.Answer(principaltest.As(ctx, "slack:U0ALICE"), settled.ID, hitl.Response{Value: "eu"})
	require.NoError(t, err)
	run, err := e.api.Run(ctx, "idle-run", client.RunOptions{})
	require.NoError(t, err)
	defer run.Close()
	_, err = run.Checkpoint(ctx, 1)
	require.NoError(t, err)
	e.posted(t, testChannel, pending)
	e.recorded(t, pending.ID)

	// Wait until every writer caught up with the log: the Slack outbox and
	// the mailer have read every event, and nothing is queued.
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		last, err := m.Service.Log.LastSeq(ctx)
		require.NoError(t, err)
		slack, err := m.DB.OutboxCursor(ctx)
		require.NoError(t, err)
		mail, err := m.DB.MailCursor(ctx)
		require.NoError(t, err)
		queued, err := m.DB.QueueLength(ctx)
		require.NoError(t, err)
		if slack == last && mail == last && queued == 0 {
			break
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("the outboxes never caught up: log at %d, Slack at %d (%d queued), mail at %d", last, slack, queued, mail)
		}
	}

	// A browser on the inbox: tokenless on loopback, its first page signs
	// it in (a stored session), and it keeps the cookie.
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	browser := &http.Client{Jar: jar}
	get := func(path string) {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.URL()+path, nil)
		require.NoError(t, err)
		resp, err := browser.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, path)
	}
	get("/")

	before := metaPages(t, m.Config.DB)
	sweep := m.sweepWork()
	// Nine minutes in steps of a minute: the first reminder is due at ten.
	for range 9 {
		clock.Add(time.Minute)
		for range 3 {
			n, err := sweep(ctx)
			require.NoError(t, err)
			require.Zero(t, n, "nothing is due")
		}
		get("/metrics")
		get("/api/questions?status=pending")
		get("/api/runs/idle-run")
		get("/")
	}
	require.True(t, bytes.Equal(before, metaPages(t, m.Config.DB)), "the idle service committed to its file")

	// The same check fails when something is due: the reminder at ten
	// minutes is one commit.
	clock.Add(time.Minute + time.Second)
	n, err := sweep(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n, "the reminder is due")
	require.False(t, bytes.Equal(before, metaPages(t, m.Config.DB)), "a reminder sent is written")
}
