package hitl

import (
	"strings"
	"time"

	"github.com/hitlbot/hitl/fault"
)

// Timeouts are the default wait per question type (docs/protocol.md#questions) and the bounds
// every requested timeout is clamped to.
type Timeouts struct {
	Blocking      time.Duration
	Approval      time.Duration
	ErrorRecovery time.Duration
	Min           time.Duration
	Max           time.Duration
}

// DefaultTimeouts returns the defaults (docs/protocol.md#questions): 30 min blocking, 15 min
// approval, 10 min error recovery, none for non-blocking, clamped to
// 5 min .. 24 h.
func DefaultTimeouts() Timeouts {
	return Timeouts{
		Blocking:      30 * time.Minute,
		Approval:      15 * time.Minute,
		ErrorRecovery: 10 * time.Minute,
		Min:           5 * time.Minute,
		Max:           24 * time.Hour,
	}
}

// Validate reports bounds that make no sense.
func (t Timeouts) Validate() error {
	if t.Min <= 0 {
		return fault.Errorf(fault.EINVALID, "minimum timeout must be positive, got %s", t.Min)
	}
	if t.Max < t.Min {
		return fault.Errorf(fault.EINVALID, "maximum timeout %s is below the minimum %s", t.Max, t.Min)
	}
	for _, d := range []time.Duration{t.Blocking, t.Approval, t.ErrorRecovery} {
		if d <= 0 {
			return fault.Errorf(fault.EINVALID, "default timeouts must be positive, got %s", d)
		}
	}
	return nil
}

// For returns how long a question of type typ waits. requested is what the
// agent asked for (0 for the default). ok is false when the question never
// times out (non-blocking without a requested timeout).
func (t Timeouts) For(typ QuestionType, requested time.Duration) (d time.Duration, ok bool) {
	switch {
	case requested > 0:
		d = requested
	case typ == Approval:
		d = t.Approval
	case typ == ErrorRecovery:
		d = t.ErrorRecovery
	case typ == NonBlocking:
		return 0, false
	default:
		d = t.Blocking
	}
	if d < t.Min {
		d = t.Min
	}
	if d > t.Max {
		d = t.Max
	}
	return d, true
}

// Check refuses a requested timeout outside the bounds (docs/api.md): a
// client that asks for 3 s must learn it gets none of it, not be given
// 5 min silently. requested 0 (the type's default) is always fine.
func (t Timeouts) Check(requested time.Duration) error {
	switch {
	case requested <= 0:
		return nil
	case requested < t.Min:
		return fault.Errorf(fault.EINVALID, "timeout %s is below this service's minimum of %s (timeouts.min): ask for %s to %s",
			ShortDuration(requested), ShortDuration(t.Min), ShortDuration(t.Min), ShortDuration(t.Max))
	case requested > t.Max:
		return fault.Errorf(fault.EINVALID, "timeout %s is above this service's maximum of %s (timeouts.max): ask for %s to %s",
			ShortDuration(requested), ShortDuration(t.Max), ShortDuration(t.Min), ShortDuration(t.Max))
	}
	return nil
}

// ShortDuration writes d as people do: 5m, 24h, 1h30m, 3s.
func ShortDuration(d time.Duration) string {
	s := d.Round(time.Millisecond).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
