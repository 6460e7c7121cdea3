package observe_test

import (
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/observe"
	"github.com/stretchr/testify/assert"
)

// TestAlertRule is the questions API's alert rule, row by row: what starts an
// alert, what clears it, and that one that holds and is active changes
// nothing.
func TestAlertRule(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	cfg := observe.AlertConfig{Channel: "C0ALERTS"} // defaults: 20 %, 10 settled, 1 h, 1 error
	blockingAsked := func(ago time.Duration) *hitl.Question {
		return &hitl.Question{ID: "q_1", RunID: "run-1", Type: hitl.Blocking, CreatedAt: now.Add(-ago)}
	}
	active := func(names ...string) map[string]hitl.Alert {
		m := map[string]hitl.Alert{}
		for _, n := range names {
			m[n] = hitl.Alert{Name: n, State: hitl.AlertStarted, Since: now.Add(-time.Hour)}
		}
		return m
	}
	type change struct {
		name  string
		state hitl.AlertState
	}
	rows := []struct {
		name   string
		in     observe.AlertInputs
		active map[string]hitl.Alert
		want   []change
	}{
		{"nothing happening: no alert", observe.AlertInputs{}, nil, nil},
		{"3 of 10 timed out (30 %): the type's alert starts",
			observe.AlertInputs{Settled: map[hitl.QuestionType]hitl.Tally{hitl.Blocking: {Settled: 10, TimedOut: 3}}}, nil,
			[]change{{"timeout_rate:blocking", hitl.AlertStarted}}},
		{"2 of 10 (20 %, not above): no alert",
			observe.AlertInputs{Settled: map[hitl.QuestionType]hitl.Tally{hitl.Blocking: {Settled: 10, TimedOut: 2}}}, nil, nil},
		{"9 of 9 but fewer than min_settled: no alert",
			observe.AlertInputs{Settled: map[hitl.QuestionType]hitl.Tally{hitl.Approval: {Settled: 9, TimedOut: 9}}}, nil, nil},
		{"still above while active: no change",
			observe.AlertInputs{Settled: map[hitl.QuestionType]hitl.Tally{hitl.Blocking: {Settled: 20, TimedOut: 10}}},
			active("timeout_rate:blocking"), nil},
		{"back under while active: it clears",
			observe.AlertInputs{Settled: map[hitl.QuestionType]hitl.Tally{hitl.Blocking: {Settled: 20, TimedOut: 1}}},
			active("timeout_rate:blocking"), []change{{"timeout_rate:blocking", hitl.AlertCleared}}},
		{"types are apart: approvals above, blocking fine",
			observe.AlertInputs{Settled: map[hitl.QuestionType]hitl.Tally{hitl.Blocking: {Settled: 50}, hitl.Approval: {Settled: 10, TimedOut: 5}}}, nil,
			[]change{{"timeout_rate:approval", hitl.AlertStarted}}},
		{"a blocking question pending 61 minutes: unanswered_blocking starts",
			observe.AlertInputs{OldestBlocking: blockingAsked(61 * time.Minute)}, nil,
			[]change{{"unanswered_blocking", hitl.AlertStarted}}},
		{"pending exactly the hour (not more): no alert",
			observe.AlertInputs{OldestBlocking: blockingAsked(time.Hour)}, nil, nil},
		{"answered since (none pending): it clears",
			observe.AlertInputs{}, active("unanswered_blocking"), []change{{"unanswered_blocking", hitl.AlertCleared}}},
		{"a creation error in the hour: creation_errors starts",
			observe.AlertInputs{CreationErrors: 1}, nil, []change{{"creation_errors", hitl.AlertStarted}}},
		{"no creation error left in the hour: it clears",
			observe.AlertInputs{}, active("creation_errors"), []change{{"creation_errors", hitl.AlertCleared}}},
		{"a webhook delivery failed in the hour: webhook_failures starts",
			observe.AlertInputs{WebhookFailures: 1}, nil, []change{{"webhook_failures", hitl.AlertStarted}}},
		{"no webhook delivery failed in the hour: it clears",
			observe.AlertInputs{}, active("webhook_failures"), []change{{"webhook_failures", hitl.AlertCleared}}},
		{"all three at once, in name order",
			observe.AlertInputs{CreationErrors: 3, OldestBlocking: blockingAsked(2 * time.Hour),
				Settled: map[hitl.QuestionType]hitl.Tally{hitl.ErrorRecovery: {Settled: 10, TimedOut: 10}}}, nil,
			[]change{{"creation_errors", hitl.AlertStarted}, {"timeout_rate:error_recovery", hitl.AlertStarted}, {"unanswered_blocking", hitl.AlertStarted}}},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			in := r.in
			in.Now = now
			var got []change
			for _, c := range cfg.Evaluate(in, r.active) {
				got = append(got, change{c.Name, c.State})
				assert.Equal(t, now, c.At)
				assert.NotEmpty(t, c.Message)
			}
			assert.Equal(t, r.want, got)
		})
	}
	t.Run("configured thresholds replace the defaults", func(t *testing.T) {
		strict := observe.AlertConfig{TimeoutRate: 0.05, MinSettled: 2, UnansweredBlocking: 10 * time.Minute, CreationErrors: 5}
		in := observe.AlertInputs{Now: now, Settled: map[hitl.QuestionType]hitl.Tally{hitl.Blocking: {Settled: 2, TimedOut: 1}},
			OldestBlocking: blockingAsked(11 * time.Minute), CreationErrors: 4}
		var names []string
		for _, c := range strict.Evaluate(in, nil) {
			names = append(names, c.Name)
		}
		assert.Equal(t, []string{"timeout_rate:blocking", "unanswered_blocking"}, names, "4 creation errors are under 5")
	})
}
