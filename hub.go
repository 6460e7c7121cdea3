package hitl

import "sync"

// hub wakes waiters in memory once a change is durable. It holds no state
// that matters across restarts: waiters re-read the store when woken.
type hub struct {
	mu       sync.Mutex
	watchers map[string]map[chan struct{}]struct{}
	changed  chan struct{} // closed and replaced on every publish
}

func newHub() *hub {
	return &hub{watchers: map[string]map[chan struct{}]struct{}{}, changed: make(chan struct{})}
}

// watch returns a channel closed at the next change of question id.
func (h *hub) watch(id string) chan struct{} {
	ch := make(chan struct{})
	h.mu.Lock()
	defer h.mu.Unlock()
	set := h.watchers[id]
	if set == nil {
		set = map[chan struct{}]struct{}{}
		h.watchers[id] = set
	}
	set[ch] = struct{}{}
	return ch
}

func (h *hub) unwatch(id string, ch chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if set := h.watchers[id]; set != nil {
		delete(set, ch)
		if len(set) == 0 {
			delete(h.watchers, id)
		}
	}
}

// publish wakes the watchers of question id and everyone waiting for any change.
func (h *hub) publish(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.watchers[id] {
		close(ch)
	}
	delete(h.watchers, id)
	close(h.changed)
	h.changed = make(chan struct{})
}

// next returns a channel closed at the next change of anything.
func (h *hub) next() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.changed
}
