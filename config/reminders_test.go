package config_test

import (
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/config"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReminders(t *testing.T) {
	t.Run("per type and per rule, with email and web", func(t *testing.T) {
		c, err := config.Load(writeFile(t, `
reminders:
  blocking: {every: [10m, 30m], escalate_after: 45m, escalate_to: [U0LEAD, S0OPS], escalation_channel: C0ESC}
  approval: {every: [30s]}
policy:
  rules:
    - {name: deploys, op_type: deploy, effect: ask, reminders: [5m], escalate_after: 20m, escalate_to: [U0SRE]}
email:
  smtp_url: smtp://mail.example.com:587
  from: hitl@example.com
  addresses: {U0LEAD: lead@example.com}
web: {url: https://hitl.example.com}
`), env(nil))
		require.NoError(t, err)
		require.NoError(t, c.Validate())
		d := func(v time.Duration) hitl.Duration { return hitl.Duration(v) }
		assert.Equal(t, hitl.ReminderPolicies{
			hitl.Blocking: {Every: []hitl.Duration{d(10 * time.Minute), d(30 * time.Minute)}, EscalateAfter: d(45 * time.Minute),
				EscalateTo: []string{"U0LEAD", "S0OPS"}, EscalationChannel: "C0ESC"},
			hitl.Approval: {Every: []hitl.Duration{d(30 * time.Second)}},
		}, c.HitlReminders())
		rule := c.PolicyRules()[0]
		assert.Equal(t, hitl.ReminderPolicy{Every: []hitl.Duration{d(5 * time.Minute)}, EscalateAfter: d(20 * time.Minute),
			EscalateTo: []string{"U0SRE"}}, rule.ReminderPolicy)
		assert.Equal(t, "lead@example.com", c.Email.Addresses["U0LEAD"])
		assert.Equal(t, "https://hitl.example.com", c.Web.URL)
	})
	for _, tc := range []struct{ name, yaml, want string }{
		{"unknown type", "reminders: {urgent: {every: [1m]}}", "config reminders = \"urgent\""},
		{"out of order", "reminders: {blocking: {every: [30m, 10m]}}", "reminders.blocking: reminders: 10m0s does not come after 30m0s"},
		{"escalation to nobody", "reminders: {blocking: {escalate_after: 1h}}", "escalate_after needs escalate_to or escalation_channel"},
		{"escalation to a name", "reminders: {blocking: {escalate_after: 1h, escalate_to: [bob]}}", `"bob" is not a Slack user`},
		{"escalation to a bad channel", "reminders: {blocking: {escalate_after: 1h, escalation_channel: 'ops room'}}", "escalation_channel"},
		{"rule that allows", "policy: {rules: [{name: r, effect: allow, reminders: [1m]}]}", "reminders and escalation only apply to effect ask"},
		{"bad smtp url", "email: {smtp_url: 'http://x', from: a@b.c}", "config email.smtp_url"},
		{"bad from", "email: {smtp_url: 'smtp://x:25', from: nobody}", "config email.from"},
		{"bad web url", "web: {url: example.com}", "config web.url"},
	} {
		t.Run(tc.name+" is refused", func(t *testing.T) {
			c, err := config.Load(writeFile(t, tc.yaml), env(nil))
			require.NoError(t, err)
			err = c.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
