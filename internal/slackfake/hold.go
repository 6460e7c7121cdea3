package slackfake

import (
	"context"
	"sync"
)

// Hold delays the Web API calls of one method: each waits, before it is
// answered, until the hold is released (or the client gives up). It lets a
// test make Slack slow for one method without sleeping.
type Hold struct {
	s       *Server
	method  string
	arrived int // calls that reached the hold, guarded by s.mu
	release chan struct{}
	once    sync.Once
}

// Hold makes calls to method wait until the returned hold is released. A
// later Hold of the same method replaces it; Close releases every hold.
func (s *Server) Hold(method string) *Hold {
	h := &Hold{s: s, method: method, release: make(chan struct{})}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.holds == nil {
		s.holds = map[string]*Hold{}
	}
	s.holds[method] = h
	return h
}

// Arrived waits until n calls have reached the hold, or ctx ends.
func (h *Hold) Arrived(ctx context.Context, n int) error {
	return h.s.waitFor(ctx, func() bool { return h.arrived >= n })
}

// Release lets the held calls, and every later call of the method, through.
func (h *Hold) Release() {
	h.once.Do(func() {
		close(h.release)
		h.s.mu.Lock()
		if h.s.holds[h.method] == h {
			delete(h.s.holds, h.method)
		}
		h.s.mu.Unlock()
	})
}

// wait holds a call to method, if a hold is set, until it is released or
// done ends.
func (s *Server) wait(method string, done <-chan struct{}) {
	s.mu.Lock()
	h := s.holds[method]
	if h != nil {
		h.arrived++
		s.notifyLocked()
	}
	s.mu.Unlock()
	if h == nil {
		return
	}
	select {
	case <-h.release:
	case <-done:
	}
}

// releaseHolds releases every hold (at Close).
func (s *Server) releaseHolds() {
	s.mu.Lock()
	hs := make([]*Hold, 0, len(s.holds))
	for _, h := range s.holds {
		hs = append(hs, h)
	}
	s.mu.Unlock()
	for _, h := range hs {
		h.Release()
	}
}
