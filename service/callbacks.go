package service

import "github.com/hitlbot/hitl/fault"

// CallbackCheck is where a question's callbackUrl may point: the webhook
// edge's rule (webhook.CallbackPolicy, wired in cmd/hitl), asked when the
// question is asked so that nothing is stored for a callbackUrl the edge
// would refuse to call. The service knows no webhook edge: it takes only
// this.
type CallbackCheck interface {
	// Check refuses (EINVALID, naming the setting to change) a callbackUrl
	// that may not be called; "" (none) is allowed.
	Check(callbackURL string) error
}

// noCallbacks is the check of a service given none: no callbackUrl is
// allowed (the zero webhook.CallbackPolicy's answer, without its parsing).
type noCallbacks struct{}

func (noCallbacks) Check(callbackURL string) error {
	if callbackURL == "" {
		return nil
	}
	return fault.Errorf(fault.EINVALID, "callbackUrl: no host is allowed; list the callbackUrl's host in webhooks_allowed_hosts in the config")
}

// callbacksOf is c, or noCallbacks for none.
func callbacksOf(c CallbackCheck) CallbackCheck {
	if c == nil {
		return noCallbacks{}
	}
	return c
}
