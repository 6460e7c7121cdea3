// Package notify is the in-process hitl.Notifier: one process, one store
// (bbolt, or memory in tests). Nothing in it matters across restarts;
// waiters re-read the store when woken.
package notify

import "sync"

// Local wakes the waiters of one process. Its zero value is not usable;
// call New.
type Local struct {
	mu       sync.Mutex
	watchers map[string]map[chan struct{}]struct{}
	changed  chan struct{} // closed and replaced on every publish
}

// New returns a Local with no waiters.
func New() *Local {
	return &Local{watchers: map[string]map[chan struct{}]struct{}{}, changed: make(chan struct{})}
}

// Watch returns a channel closed at the next Publish of id, and a cancel
// that forgets it.
func (l *Local) Watch(id string) (<-chan struct{}, func()) {
	ch := make(chan struct{})
	l.mu.Lock()
	set := l.watchers[id]
	if set == nil {
		set = map[chan struct{}]struct{}{}
		l.watchers[id] = set
	}
	set[ch] = struct{}{}
	l.mu.Unlock()
	return ch, func() { l.unwatch(id, ch) }
}

func (l *Local) unwatch(id string, ch chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if set := l.watchers[id]; set != nil {
		delete(set, ch)
		if len(set) == 0 {
			delete(l.watchers, id)
		}
	}
}

// Publish wakes the watchers of id ("" has none) and every Changed channel.
func (l *Local) Publish(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if id != "" {
		for ch := range l.watchers[id] {
			close(ch)
		}
		delete(l.watchers, id)
	}
	close(l.changed)
	l.changed = make(chan struct{})
}

// Changed returns a channel closed at the next Publish.
func (l *Local) Changed() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.changed
}

// WakeAll wakes every watcher of every id and every Changed channel: what
// a notifier that may have missed changes does (a replica whose LISTEN
// connection was lost and regained).
func (l *Local) WakeAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for id, set := range l.watchers {
		for ch := range set {
			close(ch)
		}
		delete(l.watchers, id)
	}
	close(l.changed)
	l.changed = make(chan struct{})
}
