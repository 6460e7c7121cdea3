package blocks

import (
	"testing"
	"time"

	"github.com/hitlbot/hitl"
)

func TestAlertMessage(t *testing.T) {
	since := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	started := hitl.Alert{Name: "timeout_rate:blocking", State: hitl.AlertStarted, Since: since, At: since,
		Message: "30% of blocking questions timed out in the last hour (3 of 10 settled; the threshold is 20%) <@channel>"}
	golden(t, "alert_started", AlertMessage(started))
	cleared := started
	cleared.State, cleared.At, cleared.Message = hitl.AlertCleared, since.Add(75*time.Minute), "the timeout rate of blocking questions is back under the threshold"
	golden(t, "alert_cleared", AlertMessage(cleared))
}
