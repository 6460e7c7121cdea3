package slack

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNudgeDeliveries(t *testing.T) {
	b := newBot(Config{DefaultChannel: "C0HITL", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, &fakeAPI{}, Service{}, memstore.NewOutbox())
	at := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	escalated := func(channel string) *hitl.Question {
		return &hitl.Question{ID: "q_1", Status: hitl.StatusPending, Assignees: []string{"U0BOB"}, EscalatedTo: []string{"U0ESC", "S0OPS"},
			Reminders: &hitl.ReminderPlan{EscalateTo: []string{"U0ESC", "S0OPS"}, EscalationChannel: channel, EscalatedAt: &at}}
	}
	kinds := func(ds []hitl.Delivery) []string {
		var out []string
		for _, d := range ds {
			out = append(out, d.Kind+" "+d.Target)
		}
		return out
	}
	for name, tc := range map[string]struct {
		ev   *hitl.Event
		want []string
	}{
		"a reminder is a thread reply at each message": {
			&hitl.Event{Type: hitl.EventQuestionReminded, QuestionID: "q_1", Question: &hitl.Question{ID: "q_1", Status: hitl.StatusPending, Assignees: []string{"U0BOB", "S0OPS"}}},
			[]string{"remind U0BOB", "remind C0HITL"}},
		"an escalation updates, says so and posts to the escalation channel": {
			&hitl.Event{Type: hitl.EventQuestionEscalated, QuestionID: "q_1", Question: escalated("C0ESC")},
			[]string{"update U0BOB", "escalate U0BOB", "post C0ESC"}},
		"without an escalation channel, the people added get it by DM": {
			&hitl.Event{Type: hitl.EventQuestionEscalated, QuestionID: "q_1", Question: escalated("")},
			[]string{"update U0BOB", "escalate U0BOB", "post U0ESC"}},
		"a reassignment reaches the old messages and the new assignees": {
			&hitl.Event{Type: hitl.EventQuestionReassigned, QuestionID: "q_1", HandedFrom: []string{"U0BOB"},
				Question: &hitl.Question{ID: "q_1", Status: hitl.StatusPending, Assignees: []string{"U0CAROL"}}},
			[]string{"handed U0CAROL", "handed U0BOB"}},
		"an answer updates the escalation post too, recorded yet or not": {
			&hitl.Event{Type: hitl.EventQuestionAnswered, QuestionID: "q_1", Question: escalated("C0ESC")},
			[]string{"update U0BOB", "update C0ESC"}},
	} {
		t.Run(name, func(t *testing.T) {
			ds, err := b.deliveriesFor(context.Background(), tc.ev)
			require.NoError(t, err)
			assert.Equal(t, tc.want, kinds(ds))
		})
	}
}

// slackPost is a chat.postMessage the fake saw: where, in which thread.
type slackPost struct{ channel, thread, text string }

// recordPosts makes api answer chat.postMessage with a new ts each time
// and returns the posts it saw.
func recordPosts(api *fakeAPI) func() []slackPost {
	var mu sync.Mutex
	var posts []slackPost
	api.PostMessage = func(_ context.Context, channel string, v url.Values) (string, string, error) {
		mu.Lock()
		defer mu.Unlock()
		posts = append(posts, slackPost{channel, v.Get("thread_ts"), v.Get("text")})
		return channel, fmt.Sprintf("1700000000.%06d", len(posts)), nil
	}
	return func() []slackPost {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(posts)
	}
}

// TestHandedNudgesTheNewAssigneesOnly: a reassignment updates the old
// assignee's DM without a reply there, posts the question to the new
// assignee's DM, and in a channel that shows it still updates the
// message and says in its thread whom it was handed to.
func TestHandedNudgesTheNewAssigneesOnly(t *testing.T) {
	api := &fakeAPI{}
	posts := recordPosts(api)
	tb := newTestBot(t, api, access.Access{}, nil)
	handed := func(t *testing.T, q *hitl.Question, to string) {
		t.Helper()
		_, err := tb.svc.Questions.Reassign(auth.WithPrincipal(tb.ctx, auth.LocalPrincipal("tester")), q.ID, []string{to})
		require.NoError(t, err)
	}
	t.Run("from a DM to a DM", func(t *testing.T) {
		q := tb.ask(t, agentP, hitl.NewQuestion{Question: "Rotate the key?", ResponseType: hitl.BooleanResponse, Assignees: []string{"U0BOB"}})
		require.NoError(t, tb.do(tb.ctx, hitl.Delivery{Seq: 1, Kind: kindPost, QuestionID: q.ID, Target: "U0BOB"}))
		before, updates := len(posts()), api.Calls("chat.update")
		handed(t, q, "U0CAROL")

		require.NoError(t, tb.do(tb.ctx, hitl.Delivery{Seq: 2, Kind: kindHanded, QuestionID: q.ID, Target: "U0BOB"}))
		assert.Equal(t, updates+1, api.Calls("chat.update"), "the old DM says whom it was handed to")
		assert.Len(t, posts(), before, "the old assignee is not nudged")

		require.NoError(t, tb.do(tb.ctx, hitl.Delivery{Seq: 3, Kind: kindHanded, QuestionID: q.ID, Target: "U0CAROL"}))
		require.Len(t, posts(), before+1)
		p := posts()[before]
		assert.Equal(t, slackPost{"DU0CAROL", "", p.text}, p, "the question, posted to the new assignee's DM")
		assert.Contains(t, p.text, "<@U0CAROL>")
	})
	t.Run("in a channel", func(t *testing.T) {
		q := tb.ask(t, agentP, hitl.NewQuestion{Question: "Merge?", ResponseType: hitl.BooleanResponse, Channel: "C0TEAM", Assignees: []string{"U0BOB"}})
		require.NoError(t, tb.do(tb.ctx, hitl.Delivery{Seq: 4, Kind: kindPost, QuestionID: q.ID, Target: "C0TEAM"}))
		refs, err := tb.outbox.Delivered(tb.ctx, q.ID)
		require.NoError(t, err)
		require.Len(t, refs, 1)
		before, updates := len(posts()), api.Calls("chat.update")
		handed(t, q, "U0CAROL")

		require.NoError(t, tb.do(tb.ctx, hitl.Delivery{Seq: 5, Kind: kindHanded, QuestionID: q.ID, Target: "C0TEAM"}))
		assert.Equal(t, updates+1, api.Calls("chat.update"), "the message says whom it was handed to")
		require.Len(t, posts(), before+1)
		reply := posts()[before]
		assert.Equal(t, "C0TEAM", reply.channel)
		assert.Equal(t, refs[0].TS, reply.thread, "in the message's thread")
		assert.Contains(t, reply.text, "<@U0CAROL>")
	})
}

// TestEscalationPostOfARunsQuestion: a question of a run (no channel, no
// assignee) is posted in the thread of the run's live message; its
// escalation is posted where escalation posts it (the escalation channel,
// else the DM of each person added), in a message of its own, not again
// in that thread.
func TestEscalationPostOfARunsQuestion(t *testing.T) {
	for name, tc := range map[string]struct{ channel, target, posted string }{
		"to the escalation channel":             {"C0ESC", "C0ESC", "C0ESC"},
		"without one, to the person added's DM": {"", "U0ESC", "DU0ESC"},
	} {
		t.Run(name, func(t *testing.T) {
			api := &fakeAPI{}
			posts := recordPosts(api)
			clock := clocktest.New(t0)
			st := memstore.New()
			svc := service.NewService(st, service.ServiceConfig{Notifier: notify.New(), Clock: clock, Reminders: hitl.ReminderPolicies{
				hitl.Blocking: {EscalateAfter: hitl.Duration(20 * time.Minute), EscalateTo: []string{"U0ESC"}, EscalationChannel: tc.channel}}})
			b, ctx := newQueueBot(api, svc, st, clock)
			b.cfg.RunsChannel = "C0RUNS"
			live := hitl.Delivery{Seq: 1, Kind: kindRun, QuestionID: runKey("run-1"), Target: runKey("run-1")}
			require.NoError(t, b.outbox.Complete(ctx, live, &hitl.Delivered{QuestionID: live.QuestionID, Target: live.Target, Channel: "C0RUNS", TS: "1699999999.000001"}))
			q, _, err := svc.Questions.Create(auth.WithPrincipal(ctx, agentP), "run-1", hitl.NewQuestion{Question: "Ship it?"})
			require.NoError(t, err)

			require.NoError(t, b.do(ctx, hitl.Delivery{Seq: 2, Kind: kindPost, QuestionID: q.ID, Target: "C0HITL"}))
			require.Len(t, posts(), 1)
			assert.Equal(t, slackPost{"C0RUNS", "1699999999.000001", posts()[0].text}, posts()[0], "in the run's thread")

			clock.Set(t0.Add(21 * time.Minute))
			n, err := svc.Questions.SweepReminders(ctx)
			require.NoError(t, err)
			require.Equal(t, 1, n)
			require.NoError(t, b.do(ctx, hitl.Delivery{Seq: 3, Kind: kindPost, QuestionID: q.ID, Target: tc.target}))
			require.Len(t, posts(), 2)
			assert.Equal(t, slackPost{tc.posted, "", posts()[1].text}, posts()[1], "a message of its own")
		})
	}
}
