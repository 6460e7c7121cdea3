package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/steer"
	"github.com/hitlbot/hitl/webhook"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// webhookEnv is a service over st that routes events to two endpoints
// ("ci": answers and ends of ci-* runs; "all": every event) and allows
// callbackUrls to agent.example.
func webhookEnv(st hitl.Store) *env {
	var n atomic.Int64
	return envWith(st, service.ServiceConfig{
		Webhooks: &hitl.WebhookRoutes{
			Endpoints: []hitl.WebhookRoute{
				{Name: "ci", URL: "https://ci.example/hook", Events: []hitl.WebhookEvent{hitl.WebhookQuestionAnswered, hitl.WebhookRunDone}, Runs: "ci-*"},
				{Name: "all", URL: "https://all.example/hook", Events: hitl.WebhookEvents},
			},
			NewID: func() string { return fmt.Sprintf("msg_%03d", n.Add(1)) },
		},
		Callbacks: webhook.CallbackPolicy{AllowedHosts: []string{"agent.example"}},
	})
}

// runWebhooks is the contract of hitl.WebhookOutbox (part.go), with the
// store's events filling it.
func runWebhooks(t *testing.T, open func(t *testing.T) hitl.Store) {
	t.Run("an answer enqueues its deliveries with its event", func(t *testing.T) { testWebhookEnqueue(t, open(t)) })
	t.Run("a run's change of status is delivered to the endpoints that want it", func(t *testing.T) { testWebhookRun(t, open(t)) })
	t.Run("deliveries to one target for one run go one at a time, in order", func(t *testing.T) { testWebhookOrder(t, open(t)) })
	t.Run("a claim holds a delivery until it runs out", func(t *testing.T) { testWebhookClaim(t, open(t)) })
	t.Run("failed deliveries are listed, counted, replayed and pruned", func(t *testing.T) { testWebhookFailed(t, open(t)) })
	t.Run("concurrent claimers never claim one delivery twice", func(t *testing.T) { testWebhookClaimers(t, open(t)) })
	t.Run("a claim takes what its capacity rules allow", func(t *testing.T) { testWebhookClaimRules(t, open(t)) })
}

// testWebhookClaimRules: a store applies a hitl.WebhookClaim while it reads
// the due heads (earliest first): no callbacks when their share is in
// use, none of an asker at its cap, none to a target at its cap (by the
// normalised target, however the URL is spelled), at most Callbacks.
func testWebhookClaimRules(t *testing.T, st hitl.Store) {
	ctx := context.Background()
	cb := func(id, run, u, asker string) hitl.WebhookDelivery {
		return hitl.WebhookDelivery{ID: id, URL: u, Asker: asker, Type: hitl.WebhookQuestionAnswered, RunID: run, NextAt: t0, CreatedAt: t0, Body: []byte(`{}`)}
	}
	ev := &hitl.Event{Type: hitl.EventQuestionAnswered, QuestionID: "q1", RunID: "r1", At: t0, Webhooks: []hitl.WebhookDelivery{
		cb("a1", "r1", "https://agent.example/x", "api:a"),
		cb("a2", "r2", "https://AGENT.example:443/y", "api:a"),
		cb("a3", "r3", "https://other.example/z", "api:a"),
		cb("b1", "r4", "https://agent.example/w", "api:b"),
		{ID: "ops", Endpoint: "ops", Type: hitl.WebhookQuestionAnswered, RunID: "r5", NextAt: t0, CreatedAt: t0, Body: []byte(`{}`)},
	}}
	require.NoError(t, st.AppendEvent(ctx, ev))
	now := t0.Add(time.Hour)
	steps := []struct {
		name  string
		claim hitl.WebhookClaim
		want  []string
	}{
		{"the callbacks' share in use: endpoints only", hitl.WebhookClaim{NoCallbacks: true}, []string{"ops"}},
		{"an asker at its cap is left out", hitl.WebhookClaim{PerAsker: 1, Askers: map[string]int{"api:a": 1}}, []string{"b1"}},
		{"a target at its cap is left out, however spelled", hitl.WebhookClaim{PerTarget: 1, Targets: map[string]int{"callback:https://agent.example": 1}}, []string{"a3"}},
		{"at most Callbacks", hitl.WebhookClaim{Callbacks: 1}, []string{"a1"}},
		{"the rest", hitl.WebhookClaim{}, []string{"a2"}},
	}
	for _, s := range steps {
		got, err := st.ClaimWebhooks(ctx, now, now.Add(time.Minute), s.claim)
		require.NoError(t, err, s.name)
		ids := []string{}
		for _, d := range got {
			ids = append(ids, d.ID)
		}
		assert.Equal(t, s.want, ids, s.name)
	}
}

func bodyOf(t *testing.T, d hitl.WebhookDelivery) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(d.Body, &m), "%s", d.Body)
	return m
}

func testWebhookEnqueue(t *testing.T, st hitl.Store) {
	ctx := context.Background()
	e := webhookEnv(st)
	q := e.ask(t, "ci-1", hitl.NewQuestion{Question: "Secret?", InputType: hitl.PasswordInput, CallbackURL: "https://agent.example/resume?run=ci-1"})
	assert.Equal(t, "https://agent.example/resume?run=ci-1", q.CallbackURL)
	none, err := st.ClaimWebhooks(ctx, t0.Add(time.Hour), t0.Add(2*time.Hour), hitl.WebhookClaim{})
	require.NoError(t, err)
	require.Empty(t, none, "asking is no webhook event")
	e.answer(t, q.ID, "hunter2")
	evs, err := st.Events(ctx, 0, 0)
	require.NoError(t, err)
	answered := evs[len(evs)-1]
	require.Equal(t, hitl.EventQuestionAnswered, answered.Type)

	got, err := st.ClaimWebhooks(ctx, t0.Add(time.Hour), t0.Add(2*time.Hour), hitl.WebhookClaim{})
	require.NoError(t, err)
	require.Len(t, got, 3, "ci, all and the callback")
	targets := map[string]hitl.WebhookDelivery{}
	for _, d := range got {
		targets[d.Target()] = d
		assert.Equal(t, answered.Seq, d.EventSeq, "written with its event")
		assert.Equal(t, got[0].ID, d.ID, "one webhook id per event")
		assert.Equal(t, hitl.WebhookQuestionAnswered, d.Type)
		assert.Equal(t, "ci-1", d.RunID)
		assert.Equal(t, q.ID, d.QuestionID)
		assert.Equal(t, uint64(1), d.Claim)
		assert.Equal(t, t0.Add(2*time.Hour), d.NextAt.UTC())
		assert.NotContains(t, string(d.Body), "hunter2", "a sensitive answer is never sent")
		b := bodyOf(t, d)
		assert.Equal(t, "question.answered", b["type"])
		data := b["data"].(map[string]any)
		assert.Equal(t, q.ID, data["id"])
		assert.Equal(t, "answered", data["status"])
	}
	assert.Contains(t, targets, "ci")
	assert.Contains(t, targets, "all")
	require.Contains(t, targets, "callback:https://agent.example")
	assert.Equal(t, "https://agent.example/resume?run=ci-1", targets["callback:https://agent.example"].URL)
	stored, err := st.WebhookDelivery(ctx, targets["ci"].Seq)
	require.NoError(t, err)
	assert.Equal(t, targets["ci"].Claim, stored.Claim)
	_, err = st.WebhookDelivery(ctx, 999999)
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err))

	// A run the ci endpoint does not match: only "all" (no callback).
	q2 := e.ask(t, "other-1", hitl.NewQuestion{Question: "Go?"})
	e.answer(t, q2.ID, "yes")
	got, err = st.ClaimWebhooks(ctx, t0.Add(time.Hour), t0.Add(2*time.Hour), hitl.WebhookClaim{})
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, "all", got[0].Target())
	assert.Equal(t, "other-1", got[0].RunID)
}

func testWebhookRun(t *testing.T, st hitl.Store) {
	ctx := context.Background()
	e := webhookEnv(st)
	loop := auth.WithPrincipal(context.Background(), auth.TokenPrincipal("loop", []auth.Scope{auth.ScopeAsk}, ""))
	_, err := e.svc.Runs.Checkpoint(loop, steer.StateEvent{RunID: "ci-7", Stack: []steer.StackEntry{{ID: "ci-7", Iter: 1}}})
	require.NoError(t, err)
	none, err := st.ClaimWebhooks(ctx, t0.Add(time.Hour), t0.Add(2*time.Hour), hitl.WebhookClaim{})
	require.NoError(t, err)
	require.Empty(t, none, "starting is no webhook event")
	_, err = e.svc.Runs.Publish(loop, steer.StateEvent{Event: steer.StateDone, RunID: "ci-7"})
	require.NoError(t, err)
	got, err := st.ClaimWebhooks(ctx, t0.Add(time.Hour), t0.Add(2*time.Hour), hitl.WebhookClaim{})
	require.NoError(t, err)
	require.Len(t, got, 2)
	for _, d := range got {
		assert.Equal(t, hitl.WebhookRunDone, d.Type)
		data := bodyOf(t, d)["data"].(map[string]any)
		assert.Equal(t, "ci-7", data["runId"])
		assert.Equal(t, "done", data["control"].(map[string]any)["status"])
		run, err := st.Run(ctx, "ci-7")
		require.NoError(t, err)
		assert.EqualValues(t, run.Version, data["version"], "the run as stored")
	}
}

// enqueueAnswers answers n questions of run, one after the other: each
// answer owes "all" one delivery.
func enqueueAnswers(t *testing.T, e *env, run string, n int) []string {
	t.Helper()
	var qs []string
	for range n {
		q := e.ask(t, run, hitl.NewQuestion{Question: "Go?"})
		e.answer(t, q.ID, "yes")
		qs = append(qs, q.ID)
	}
	return qs
}

func settle(t *testing.T, st hitl.Store, d hitl.WebhookDelivery, status hitl.WebhookStatus, at time.Time) {
	t.Helper()
	d.Status, d.Attempts, d.SettledAt = status, d.Attempts+1, &at
	require.NoError(t, st.SettleWebhook(context.Background(), d))
}

func testWebhookOrder(t *testing.T, st hitl.Store) {
	ctx := context.Background()
	e := webhookEnv(st)
	a := enqueueAnswers(t, e, "run-a", 3)
	b := enqueueAnswers(t, e, "run-b", 1)
	now, until := t0.Add(time.Hour), t0.Add(2*time.Hour)
	claim := func(now time.Time, skip ...string) []hitl.WebhookDelivery {
		t.Helper()
		busy := map[string]int{}
		for _, s := range skip {
			busy[s] = 1
		}
		c := hitl.WebhookClaim{}
		if len(skip) > 0 {
			c = hitl.WebhookClaim{PerTarget: 1, Targets: busy}
		}
		got, err := st.ClaimWebhooks(ctx, now, until, c)
		require.NoError(t, err)
		return got
	}
	require.Empty(t, claim(now, "all"), "a skipped target is left out")
	got := claim(now)
	require.Len(t, got, 2, "the head of each run's queue only")
	assert.Equal(t, a[0], got[0].QuestionID)
	assert.Equal(t, b[0], got[1].QuestionID)
	require.Empty(t, claim(now), "the next of run-a waits on the first")
	settle(t, st, got[0], hitl.WebhookDelivered, now)
	next := claim(now)
	require.Len(t, next, 1)
	assert.Equal(t, a[1], next[0].QuestionID, "in order")
	// A retry keeps its place: the one after it still waits.
	r := next[0]
	r.Attempts, r.NextAt, r.LastError = 1, now.Add(5*time.Second), "500 Internal Server Error"
	require.NoError(t, st.SettleWebhook(ctx, r))
	require.Empty(t, claim(now.Add(4*time.Second)))
	again := claim(now.Add(5 * time.Second))
	require.Len(t, again, 1)
	assert.Equal(t, a[1], again[0].QuestionID)
	assert.Equal(t, 1, again[0].Attempts)
	assert.Equal(t, "500 Internal Server Error", again[0].LastError)
	settle(t, st, again[0], hitl.WebhookFailed, now)
	last := claim(now.Add(5 * time.Second))
	require.Len(t, last, 1, "a failed delivery lets the next go")
	assert.Equal(t, a[2], last[0].QuestionID)
}

func testWebhookClaim(t *testing.T, st hitl.Store) {
	ctx := context.Background()
	e := webhookEnv(st)
	enqueueAnswers(t, e, "run-a", 1)
	now := t0.Add(time.Hour)
	first, err := st.ClaimWebhooks(ctx, now, now.Add(time.Minute), hitl.WebhookClaim{})
	require.NoError(t, err)
	require.Len(t, first, 1)
	held, err := st.ClaimWebhooks(ctx, now.Add(59*time.Second), now.Add(2*time.Minute), hitl.WebhookClaim{})
	require.NoError(t, err)
	require.Empty(t, held, "claimed until its claim runs out")
	second, err := st.ClaimWebhooks(ctx, now.Add(time.Minute), now.Add(2*time.Minute), hitl.WebhookClaim{})
	require.NoError(t, err)
	require.Len(t, second, 1, "a claim that ran out is due again")
	assert.Equal(t, first[0].Claim+1, second[0].Claim)
	late := first[0]
	late.Status = hitl.WebhookDelivered
	assert.Equal(t, fault.ECONFLICT, fault.Code(st.SettleWebhook(ctx, late)), "the first claimer lost it")
	settle(t, st, second[0], hitl.WebhookDelivered, now)
	assert.Equal(t, fault.ECONFLICT, fault.Code(st.SettleWebhook(ctx, second[0])), "settled once")
	missing := second[0]
	missing.Seq = 424242
	assert.Equal(t, fault.ENOTFOUND, fault.Code(st.SettleWebhook(ctx, missing)))
	limited := enqueueAnswers(t, e, "run-b", 1)
	enqueueAnswers(t, e, "run-c", 1)
	one, err := st.ClaimWebhooks(ctx, t0.Add(2*time.Hour), t0.Add(3*time.Hour), hitl.WebhookClaim{Limit: 1})
	require.NoError(t, err)
	require.Len(t, one, 1, "limit")
	assert.Equal(t, limited[0], one[0].QuestionID, "earliest first")
}

func testWebhookFailed(t *testing.T, st hitl.Store) {
	ctx := context.Background()
	e := webhookEnv(st)
	enqueueAnswers(t, e, "ci-1", 1) // ci and all
	enqueueAnswers(t, e, "run-b", 1)
	now := t0.Add(time.Hour)
	got, err := st.ClaimWebhooks(ctx, now, now.Add(time.Minute), hitl.WebhookClaim{})
	require.NoError(t, err)
	require.Len(t, got, 3)
	by := map[string]hitl.WebhookDelivery{}
	for _, d := range got {
		by[d.Target()+"/"+d.RunID] = d
	}
	settle(t, st, by["ci/ci-1"], hitl.WebhookFailed, now)
	settle(t, st, by["all/ci-1"], hitl.WebhookDelivered, now.Add(time.Second))
	failed, err := st.WebhookDeliveries(ctx, hitl.WebhookFilter{Status: hitl.WebhookFailed})
	require.NoError(t, err)
	require.Len(t, failed, 1)
	assert.Equal(t, by["ci/ci-1"].Seq, failed[0].Seq)
	assert.Equal(t, hitl.WebhookFailed, failed[0].Status)
	all, err := st.WebhookDeliveries(ctx, hitl.WebhookFilter{})
	require.NoError(t, err)
	require.Len(t, all, 3)
	assert.Greater(t, all[0].Seq, all[1].Seq, "newest first")
	page, err := st.WebhookDeliveries(ctx, hitl.WebhookFilter{Before: all[0].Seq, Limit: 1})
	require.NoError(t, err)
	require.Len(t, page, 1)
	assert.Equal(t, all[1].Seq, page[0].Seq)

	stats, err := st.WebhookStats(ctx)
	require.NoError(t, err)
	require.Len(t, stats, 2)
	assert.Equal(t, "all", stats[0].Target)
	assert.Equal(t, 1, stats[0].Pending, "run-b's, claimed")
	require.NotNil(t, stats[0].LastSuccess)
	assert.True(t, now.Add(time.Second).Equal(*stats[0].LastSuccess))
	assert.Equal(t, hitl.WebhookTargetStats{Target: "ci", Failed: 1}, stats[1])

	replay, err := st.ReplayWebhook(ctx, by["ci/ci-1"].Seq, now.Add(time.Hour))
	require.NoError(t, err)
	assert.Greater(t, replay.Seq, by["ci/ci-1"].Seq)
	assert.Equal(t, by["ci/ci-1"].ID, replay.ID, "a replay repeats the webhook id")
	assert.Equal(t, hitl.WebhookPending, replay.Status)
	assert.Zero(t, replay.Attempts)
	_, err = st.ReplayWebhook(ctx, 424242, now)
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err))
	again, err := st.ClaimWebhooks(ctx, now.Add(time.Hour), now.Add(2*time.Hour), hitl.WebhookClaim{})
	require.NoError(t, err)
	require.Len(t, again, 2, "the replay and run-b's, whose claim ran out")
	assert.Equal(t, string(by["ci/ci-1"].Body), string(again[1].Body))

	n, err := st.PruneWebhooks(ctx, now.Add(time.Second), 10)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "the failed one, settled before; the delivered one is not")
	_, err = st.WebhookDelivery(ctx, by["ci/ci-1"].Seq)
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err))
	n, err = st.PruneWebhooks(ctx, now.Add(time.Hour), 10)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "pending ones are kept")
	stats, err = st.WebhookStats(ctx)
	require.NoError(t, err)
	require.Len(t, stats, 2)
	assert.NotNil(t, stats[0].LastSuccess, "the last success outlives its delivery")
}

func testWebhookClaimers(t *testing.T, st hitl.Store) {
	ctx := context.Background()
	e := webhookEnv(st)
	const runs = 20
	for i := range runs {
		enqueueAnswers(t, e, fmt.Sprintf("run-%02d", i), 2)
	}
	var mu sync.Mutex
	seen := map[uint64]int{}
	var wg sync.WaitGroup
	now := t0.Add(time.Hour)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				got, err := st.ClaimWebhooks(ctx, now, now.Add(time.Hour), hitl.WebhookClaim{Limit: 3})
				if !assert.NoError(t, err) {
					return
				}
				for _, d := range got {
					mu.Lock()
					seen[d.Seq]++
					mu.Unlock()
					d.Status, d.SettledAt = hitl.WebhookDelivered, &now
					assert.NoError(t, st.SettleWebhook(ctx, d))
				}
			}
		}()
	}
	wg.Wait()
	require.Len(t, seen, 2*runs, "every delivery claimed")
	for seq, n := range seen {
		assert.Equal(t, 1, n, "delivery %d claimed once", seq)
	}
}
