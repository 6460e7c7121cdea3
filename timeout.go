package hitl

import (
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
