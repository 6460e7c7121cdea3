package hitl_test

import (
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/stretchr/testify/assert"
)

func TestWebhookTally(t *testing.T) {
	at := time.Date(2026, 11, 28, 12, 0, 0, 0, time.FixedZone("CET", 3600))
	var tally hitl.WebhookTally
	assert.Empty(t, tally.Stats(), "the zero tally is empty")
	tally.Add("https://b.example", hitl.WebhookPending, 2)
	tally.Add("https://b.example", hitl.WebhookFailed, 1)
	tally.Add("https://a.example", hitl.WebhookPending, 1)
	tally.Add("https://a.example", hitl.WebhookDelivered, 5) // settled: not counted
	tally.Succeeded("https://c.example", at)
	utc := at.UTC()
	assert.Equal(t, []hitl.WebhookTargetStats{
		{Target: "https://a.example", Pending: 1},
		{Target: "https://b.example", Pending: 2, Failed: 1},
		{Target: "https://c.example", LastSuccess: &utc},
	}, tally.Stats())
}
