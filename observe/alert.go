package observe

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hitlbot/hitl"
)

// Alert names: the label of hitl_alert_active{alert} and the names stats
// lists. A timeout-rate alert is per question type: "timeout_rate:blocking".
const (
	AlertTimeoutRate        = "timeout_rate"
	AlertUnansweredBlocking = "unanswered_blocking"
	AlertCreationErrors     = "creation_errors"
	// AlertWebhookFailures: webhook deliveries given up (failed) in the
	// last AlertWindow.
	AlertWebhookFailures = "webhook_failures"
)

// AlertWindow is how far back the timeout rate and creation errors are
// counted.
const AlertWindow = time.Hour

// Defaults of AlertConfig (docs/operations.md#metrics-stats-and-alerts: timeout rate above 20 %, blocking
// questions unanswered for more than an hour).
const (
	DefaultAlertTimeoutRate        = 0.2
	DefaultAlertMinSettled         = 10
	DefaultAlertUnansweredBlocking = time.Hour
	DefaultAlertCreationErrors     = 1
)

// AlertConfig configures the three alerts (docs/operations.md#metrics-stats-and-alerts). Zero fields take the
// defaults above.
type AlertConfig struct {
	// Channel is the Slack channel alerts are posted to ("" posts none;
	// they still show in metrics and stats).
	Channel string
	// TimeoutRate: a question type's share of timeouts among the questions
	// of that type settled in the last AlertWindow, above which its alert
	// starts, once at least MinSettled of them settled.
	TimeoutRate float64
	MinSettled  int
	// UnansweredBlocking: a blocking question pending longer starts
	// unanswered_blocking.
	UnansweredBlocking time.Duration
	// CreationErrors: this many failed question creations (invalid input
	// or the service's own failure; not refusals) in the last AlertWindow
	// start creation_errors.
	CreationErrors int
}

// AlertInputs is what the alert rule looks at.
type AlertInputs struct {
	Now time.Time
	// Settled counts, by type, the questions settled in the last
	// AlertWindow.
	Settled map[hitl.QuestionType]hitl.Tally
	// OldestBlocking is the pending blocking question asked first; nil
	// when none is pending.
	OldestBlocking *hitl.Question
	// CreationErrors is how many question creations failed in the last
	// AlertWindow.
	CreationErrors int
	// WebhookFailures is how many webhook deliveries failed (their retry
	// window ended) in the last AlertWindow.
	WebhookFailures int
}

func clearedMessage(name string) string {
	switch typ, ok := strings.CutPrefix(name, AlertTimeoutRate+":"); {
	case ok:
		return "the timeout rate of " + typ + " questions is back under the threshold"
	case name == AlertUnansweredBlocking:
		return "no blocking question has waited longer than the threshold any more"
	case name == AlertCreationErrors:
		return "question creations stopped failing"
	case name == AlertWebhookFailures:
		return "no webhook delivery failed in the last hour"
	}
	return name + " cleared"
}

// WithDefaults returns c with zero fields set to the defaults.
func (c AlertConfig) WithDefaults() AlertConfig {
	if c.TimeoutRate <= 0 {
		c.TimeoutRate = DefaultAlertTimeoutRate
	}
	if c.MinSettled <= 0 {
		c.MinSettled = DefaultAlertMinSettled
	}
	if c.UnansweredBlocking <= 0 {
		c.UnansweredBlocking = DefaultAlertUnansweredBlocking
	}
	if c.CreationErrors <= 0 {
		c.CreationErrors = DefaultAlertCreationErrors
	}
	return c
}

// Evaluate is the alert rule (docs/operations.md#metrics-stats-and-alerts): which alerts hold at in.Now. It
// returns the changes against active (the alerts active now, by name): a
// started alert for each that holds and is not active, a cleared one for
// each active alert that no longer holds, in name order. An alert that
// holds and is active changes nothing, so each starts once and clears once.
func (c AlertConfig) Evaluate(in AlertInputs, active map[string]hitl.Alert) []hitl.Alert {
	c = c.WithDefaults()
	holds := map[string]string{} // name → message
	for typ, t := range in.Settled {
		if t.Settled < c.MinSettled { // MinSettled is at least 1
			continue
		}
		if rate := float64(t.TimedOut) / float64(t.Settled); rate > c.TimeoutRate {
			holds[AlertTimeoutRate+":"+string(typ)] = fmt.Sprintf("%.0f%% of %s questions timed out in the last hour (%d of %d settled; the threshold is %.0f%%)",
				rate*100, typ, t.TimedOut, t.Settled, c.TimeoutRate*100)
		}
	}
	if q := in.OldestBlocking; q != nil && in.Now.Sub(q.CreatedAt) > c.UnansweredBlocking {
		holds[AlertUnansweredBlocking] = fmt.Sprintf("blocking question %s of run %s has waited %s for an answer (more than %s)",
			q.ID, q.RunID, in.Now.Sub(q.CreatedAt).Truncate(time.Second), c.UnansweredBlocking)
	}
	if in.CreationErrors >= c.CreationErrors {
		holds[AlertCreationErrors] = fmt.Sprintf("%d question creations failed in the last hour (the threshold is %d)", in.CreationErrors, c.CreationErrors)
	}
	if in.WebhookFailures > 0 {
		holds[AlertWebhookFailures] = fmt.Sprintf("%d webhook deliveries failed in the last hour: see hitl webhooks list, send one again with hitl webhooks replay ID", in.WebhookFailures)
	}
	var out []hitl.Alert
	for name, msg := range holds {
		if _, ok := active[name]; !ok {
			out = append(out, hitl.Alert{Name: name, State: hitl.AlertStarted, Since: in.Now, At: in.Now, Message: msg})
		}
	}
	for name, a := range active {
		if _, ok := holds[name]; !ok {
			out = append(out, hitl.Alert{Name: name, State: hitl.AlertCleared, Since: a.Since, At: in.Now, Message: clearedMessage(name)})
		}
	}
	slices.SortFunc(out, func(a, b hitl.Alert) int { return strings.Compare(a.Name, b.Name) })
	return out
}
