package service

import (
	"context"
	"time"

	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/observe"
)

// StatsWindow computes the Stats of every run over the window from since
// to now, from its rollups (observe.Windows): the window starts at the
// start of since's minute, which the Stats' Since says. Service.Stats
// delegates to it when ServiceConfig.StatsWindow is set.
type StatsWindow interface {
	WindowStats(ctx context.Context, since time.Time) (*observe.Stats, error)
}

// CreationFailed reports whether a creation that returned err counts as a
// creation error: the agent's input was bad or the service failed.
// Refusals (rules, rate limits, the threshold) and idempotent retries
// that conflict are the rules working, not errors.
func CreationFailed(err error) bool {
	switch fault.Code(err) {
	case fault.EINVALID, fault.ETOOLARGE, fault.EINTERNAL, fault.EUNAVAILABLE:
		return true
	}
	return false
}
