package service_test

import (
	"context"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/observe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAlertsAcrossReplicas: two services over one store (two replicas)
// check alerts in turn, as their sweepers do: a change one logged holds on
// the other, so each alert starts once and clears once on the log; and a
// repeat both logged at the same moment is told apart (AlertChanged), so
// it is posted once.
func TestAlertsAcrossReplicas(t *testing.T) {
	st := memstore.New()
	clock := clocktest.New(time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC))
	a := newAlertLoad(t, st, clock)
	b := newAlertLoad(t, st, clock) // started before anything happened
	q := a.ask(t, hitl.Blocking)
	clock.Add(61 * time.Minute)

	assert.Equal(t, []string{"unanswered_blocking started"}, a.check(t))
	assert.Empty(t, b.check(t), "the other replica reads the start from the log")
	assert.Equal(t, []string{"unanswered_blocking"}, names(b.alerts.Active()))
	assert.Empty(t, a.check(t))

	b.answer(t, q.ID)
	assert.Equal(t, []string{"unanswered_blocking cleared"}, b.check(t))
	assert.Empty(t, a.check(t), "nor clears it again")
	assert.Empty(t, a.alerts.Active())
	assert.Equal(t, []string{"unanswered_blocking started", "unanswered_blocking cleared"}, alertEvents(t, st))

	// Both replicas saw the next start at once and both logged it: the
	// second is a repeat.
	ctx := context.Background()
	var logged []*hitl.Event
	for _, state := range []hitl.AlertState{hitl.AlertStarted, hitl.AlertStarted, hitl.AlertCleared, hitl.AlertCleared, hitl.AlertStarted} {
		ev := &hitl.Event{Type: hitl.EventAlert, RunID: "#alerts", At: clock.Now(), Actor: auth.ActorSystem,
			Alert: &hitl.Alert{Name: observe.AlertUnansweredBlocking, State: state}}
		require.NoError(t, st.AppendEvent(ctx, ev))
		logged = append(logged, ev)
	}
	var changed []bool
	for _, ev := range logged {
		c, err := a.svc.Observation.AlertChanged(ctx, ev)
		require.NoError(t, err)
		changed = append(changed, c)
	}
	assert.Equal(t, []bool{true, false, true, false, true}, changed, "start, repeat, clear, repeat, start")
	// The replicas follow the log, repeats included: the alert is active
	// on both, and, with nothing waiting any more, one clears it once.
	assert.Equal(t, []string{"unanswered_blocking cleared"}, a.check(t))
	assert.Empty(t, b.check(t))
	assert.Empty(t, b.alerts.Active())
}
