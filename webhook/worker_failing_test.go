package webhook_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/webhook"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// crashingOutbox settles as the store does, except that it refuses the
// first settle of a failure, as a process killed after the failure was
// recorded and before it was settled would.
type crashingOutbox struct {
	webhook.Outbox
	mu      sync.Mutex
	crashed bool
}

func (o *crashingOutbox) SettleWebhook(ctx context.Context, d hitl.WebhookDelivery) error {
	o.mu.Lock()
	crash := d.Status == hitl.WebhookFailed && !o.crashed
	o.crashed = o.crashed || crash
	o.mu.Unlock()
	if crash {
		return errors.New("killed")
	}
	return o.Outbox.SettleWebhook(ctx, d)
}

// TestFailureRecordedBeforeSettled: a delivery given up is recorded
// (Failing: the audit trail's webhook_failed) before it is settled failed.
// The crash window is explicit: a crash between the two leaves the
// delivery unsettled, tried again when its claim runs out and recorded
// again (the same delivery, the same attempt) — a failure is recorded
// twice, never not at all. A record that cannot be written leaves the
// delivery unsettled too.
func TestFailureRecordedBeforeSettled(t *testing.T) {
	rc := newReceiver(t, func(int64, *http.Request) int { return http.StatusServiceUnavailable })
	eps := []webhook.Endpoint{{Name: "ci", URL: rc.srv.URL}}
	w := newWorld(t, eps, webhook.CallbackPolicy{})
	var (
		mu       sync.Mutex
		recorded []hitl.WebhookDelivery
		refuse   = true
	)
	failing := func(_ context.Context, d hitl.WebhookDelivery) error {
		mu.Lock()
		defer mu.Unlock()
		if refuse {
			refuse = false
			return errors.New("the audit trail is down")
		}
		settled := w.deliveries(t, hitl.WebhookFailed)
		assert.Empty(t, settled, "recorded before it is settled")
		recorded = append(recorded, d)
		return nil
	}
	worker := webhook.New(webhook.Config{Endpoints: eps, CallbackSecrets: eps[0].Secrets, Clock: w.clock, Lease: time.Minute,
		Jitter: func() float64 { return 0.5 }, Failing: failing, Failed: func(hitl.WebhookDelivery) { w.failed.Add(1) }},
		&crashingOutbox{Outbox: w.store})
	step := func() int {
		t.Helper()
		n, err := worker.Step(context.Background())
		require.NoError(t, err)
		worker.Wait()
		return n
	}
	w.answered(t, "run-1", hitl.NewQuestion{})
	require.Equal(t, 1, step())
	for _, wait := range webhook.Schedule {
		w.clock.Add(wait)
		require.Equal(t, 1, step())
	}
	assert.Empty(t, recorded, "the record could not be written")
	assert.Empty(t, w.deliveries(t, hitl.WebhookFailed), "so the failure is not settled")

	w.clock.Add(time.Minute) // the claim runs out
	require.Equal(t, 1, step())
	require.Len(t, recorded, 1, "recorded")
	assert.Empty(t, w.deliveries(t, hitl.WebhookFailed), "killed before the settle")

	w.clock.Add(time.Minute)
	require.Equal(t, 1, step())
	failed := w.deliveries(t, hitl.WebhookFailed)
	require.Len(t, failed, 1, "settled failed at last")
	require.Len(t, recorded, 2, "recorded twice, never not at all")
	assert.Equal(t, recorded[0].ID, recorded[1].ID)
	assert.Equal(t, recorded[0].Attempts, recorded[1].Attempts, "the same attempt")
	assert.Equal(t, int64(1), w.failed.Load())
}
