package hitl

import "maps"

// WebhookClaim is what one claim may take of the due deliveries: the worker's
// capacity rules as a filter a store applies while it reads the due
// heads of queues, earliest first (WebhookOutbox.ClaimWebhooks).
// The rules are here, once; a store only reads each due head's target
// and asker and asks Take. The zero Claim takes every due delivery.
//
// The rules (docs/webhooks.md, "Delivery"): at most Limit deliveries;
// of them at most Callbacks callbacks (a question's callbackUrl), so
// that configured endpoints keep the rest of the worker's slots however
// many callbacks are due; at most PerTarget in flight to one target and
// PerAsker callbacks in flight for one asker, counting those already in
// flight (Targets, Askers).
type WebhookClaim struct {
	// Limit bounds the deliveries taken (0: no bound).
	Limit int
	// Callbacks bounds the callbacks among them (0: Limit only);
	// NoCallbacks takes none (the callbacks' share is in use).
	Callbacks   int
	NoCallbacks bool
	// PerTarget and PerAsker bound the attempts in flight to one target
	// and the callbacks in flight for one asker (0: no bound).
	PerTarget, PerAsker int
	// Targets and Askers count the attempts already in flight, by
	// target and (callbacks only) by asker.
	Targets, Askers map[string]int
}

// Skip returns what a store may leave out of its read before it asks
// Take: the targets and askers already at their bound, and whether
// every callback is (callbacks). Take refuses all of them anyway.
func (c WebhookClaim) Skip() (targets, askers []string, callbacks bool) {
	targets, askers = []string{}, []string{}
	if c.PerTarget > 0 {
		for t, n := range c.Targets {
			if n >= c.PerTarget {
				targets = append(targets, t)
			}
		}
	}
	if c.PerAsker > 0 {
		for a, n := range c.Askers {
			if n >= c.PerAsker {
				askers = append(askers, a)
			}
		}
	}
	return targets, askers, c.NoCallbacks
}

// Pick starts one read of the due deliveries under c: a store calls it
// for each read (a transaction retried reads again).
func (c WebhookClaim) Pick() *WebhookPick {
	return &WebhookPick{c: c, targets: maps.Clone(c.Targets), askers: maps.Clone(c.Askers)}
}

// WebhookPick counts what one read took (WebhookClaim.Pick).
type WebhookPick struct {
	c              WebhookClaim
	targets        map[string]int
	askers         map[string]int
	taken, callbks int
}

// Take reports whether the claim takes the due head of a queue to
// target (WebhookDelivery.Target), asked by asker (WebhookDelivery.Asker, a
// callback's), and counts it if so.
func (p *WebhookPick) Take(target, asker string) bool {
	c := p.c
	if p.Full() {
		return false
	}
	if c.PerTarget > 0 && p.targets[target] >= c.PerTarget {
		return false
	}
	cb := IsCallbackTarget(target)
	if cb {
		if c.NoCallbacks || (c.Callbacks > 0 && p.callbks >= c.Callbacks) {
			return false
		}
		if c.PerAsker > 0 && p.askers[asker] >= c.PerAsker {
			return false
		}
	}
	if p.targets == nil {
		p.targets = map[string]int{}
	}
	p.targets[target]++
	if cb {
		if p.askers == nil {
			p.askers = map[string]int{}
		}
		p.askers[asker]++
		p.callbks++
	}
	p.taken++
	return true
}

// Full reports whether the claim takes nothing more.
func (p *WebhookPick) Full() bool { return p.c.Limit > 0 && p.taken >= p.c.Limit }
