package webhook

import "time"

// Wait waits for the attempts the worker started.
func (w *Worker) Wait() { w.wg.Wait() }

// InFlight is how many attempts to target are in flight.
func (w *Worker) InFlight(target string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.inFlight[target]
}

// Redial makes every request dial redial(addr) instead: a name that
// "resolves" to a private address.
func (w *Worker) Redial(redial func(addr string) string) { w.redial = redial }

// SetPerTarget bounds the attempts in flight to one target.
func (w *Worker) SetPerTarget(n int) { w.cfg.PerTarget = n }

// Freed is signalled (buffered, 1) each time an attempt ends, after its
// outcome is stored.
func (w *Worker) Freed() <-chan struct{} { return w.freed }

// SwitchOff turns the endpoints' share (share) and the per-asker cap
// (askerCap) off: the tests that show each rule is what holds.
func (w *Worker) SwitchOff(share, askerCap bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.noShare, w.noAskerCap = share, askerCap
}

// Callbacks is how many callbacks are in flight, and for asker.
func (w *Worker) Callbacks(asker string) (int, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.callbacks, w.askers[asker]
}

// SetTimeout bounds one attempt (before the first Step).
func (w *Worker) SetTimeout(d time.Duration) {
	w.cfg.Timeout, w.client.Timeout = d, d
}

// Share is the slots callbacks may use and the per-asker cap.
func (w *Worker) Share() (callbacks, perAsker int) {
	return w.cfg.MaxInFlight - w.cfg.EndpointShare, w.cfg.PerAsker
}
