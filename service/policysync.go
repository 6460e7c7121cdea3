package service

import (
	"context"
	"time"

	"github.com/hitlbot/hitl"
)

// policyKey is the notifier id a change of the configured policy is
// published under: every process that shares the store (replicas on one
// database) reloads the policy at its next decision after it.
const policyKey = "policy:"

// policyReloadWithin bounds the store read of a reload.
const policyReloadWithin = 5 * time.Second

// follow makes h reload the stored policy after each published change:
// it watches first and reads second, so a change stored after the read
// is never missed. Called with h.mu held, from LoadPolicy.
func (h *policyHolder) follow(n hitl.Notifier, load func(context.Context) (*hitl.PolicyState, error)) {
	h.notifier, h.load = n, load
	h.rewatch()
}

func (h *policyHolder) rewatch() {
	if h.unwatch != nil {
		h.unwatch()
	}
	h.changed, h.unwatch = h.notifier.Watch(policyKey)
}

// refresh reloads the policy when a change was published since the last
// load (h.mu held). A failed read keeps the rules it had and tries again
// at the next decision.
func (h *policyHolder) refresh() {
	if h.changed == nil {
		return
	}
	select {
	case <-h.changed:
	default:
		return
	}
	h.rewatch()
	ctx, cancel := context.WithTimeout(context.Background(), policyReloadWithin)
	defer cancel()
	st, err := h.load(ctx)
	if err != nil {
		h.stale()
		return
	}
	if st != nil {
		h.state = *st
	}
}

// stale makes the next decision reload.
func (h *policyHolder) stale() {
	if h.unwatch != nil {
		h.unwatch()
	}
	closed := make(chan struct{})
	close(closed)
	h.changed, h.unwatch = closed, nil
}
