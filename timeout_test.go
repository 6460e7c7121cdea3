package hitl_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
)

// TestTimeoutBounds: a requested timeout outside the service's bounds is
// refused (invalid, naming the bound and the range), never clamped; the
// bounds themselves and the type's default (0) pass.
func TestTimeoutBounds(t *testing.T) {
	tb := hitl.DefaultTimeouts()
	m := func(f float64) *float64 { return &f }
	for name, c := range map[string]struct {
		minutes *float64
		msg     string // "" when accepted
	}{
		"the default":        {nil, ""},
		"3 seconds":          {m(0.05), "timeout 3s is below this service's minimum of 5m (timeouts.min): ask for 5m to 24h"},
		"just under 5 min":   {m(4.99), "below this service's minimum of 5m"},
		"the minimum":        {m(5), ""},
		"the maximum":        {m(24 * 60), ""},
		"25 hours":           {m(25 * 60), "timeout 25h is above this service's maximum of 24h (timeouts.max): ask for 5m to 24h"},
		"an hour and a half": {m(90), ""},
	} {
		t.Run(name, func(t *testing.T) {
			q, err := hitl.NewQuestion{Question: "Deploy?", TimeoutMinutes: c.minutes}.Build("q_1", "run-1", "api:a", time.Unix(0, 0), tb)
			if c.msg == "" {
				require.NoError(t, err)
				require.NotNil(t, q.TimeoutAt)
				return
			}
			require.Equal(t, fault.EINVALID, fault.Code(err))
			assert.Contains(t, fault.Message(err), c.msg)
		})
	}
}
