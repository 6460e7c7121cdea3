package blocks

import (
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/slack-go/slack"
)

func TestAlertMessage(t *testing.T) {
	since := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	started := hitl.Alert{Name: "timeout_rate:blocking", State: hitl.AlertStarted, Since: since, At: since,
		Message: "30% of blocking questions timed out in the last hour (3 of 10 settled; the threshold is 20%) <@channel>"}
	golden(t, "alert_started", AlertMessage(started))
	cleared := started
	cleared.State, cleared.At, cleared.Message = hitl.AlertCleared, since.Add(75*time.Minute), "the timeout rate of blocking questions is back under the threshold"
	golden(t, "alert_cleared", AlertMessage(cleared))
	t.Run("a long message is cut to Slack's limits", func(t *testing.T) {
		long := started
		long.Message = hostile(5000)
		m := AlertMessage(long)
		if Len(m.Text) > MaxFallbackText {
			t.Errorf("text: length %d > %d", Len(m.Text), MaxFallbackText)
		}
		if s := m.Blocks[0].(*slack.SectionBlock).Text.Text; Len(s) > MaxSectionText || !strings.HasSuffix(s, ellipsis) {
			t.Errorf("section: length %d > %d, or no visible cut", Len(s), MaxSectionText)
		}
	})
}
