package memstore

import (
	"context"
	"slices"
	"time"

	"github.com/hitlbot/hitl"
)

// PutWebSession implements hitl.WebSessionStore.
func (s *Store) PutWebSession(_ context.Context, ws *hitl.WebSession) error {
	if ws == nil || ws.ID == "" {
		return hitl.Errorf(hitl.EINVALID, "a web session needs an id")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.webSessions == nil {
		s.webSessions = map[string]hitl.WebSession{}
	}
	s.webSessions[ws.ID] = cloneSession(*ws)
	return nil
}

// cloneSession copies ws deeply: callers never share the store's slices.
func cloneSession(ws hitl.WebSession) hitl.WebSession {
	ws.Principal.Scopes = slices.Clone(ws.Principal.Scopes)
	ws.Principal.Groups = slices.Clone(ws.Principal.Groups)
	return ws
}

// WebSession implements hitl.WebSessionStore.
func (s *Store) WebSession(_ context.Context, id string) (*hitl.WebSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws, ok := s.webSessions[id]
	if !ok {
		return nil, hitl.Errorf(hitl.ENOTFOUND, "no web session")
	}
	ws = cloneSession(ws)
	return &ws, nil
}

// DeleteWebSession implements hitl.WebSessionStore.
func (s *Store) DeleteWebSession(_ context.Context, id string) (*hitl.WebSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws, ok := s.webSessions[id]
	if !ok {
		return nil, hitl.Errorf(hitl.ENOTFOUND, "no web session")
	}
	delete(s.webSessions, id)
	return &ws, nil
}

// PruneWebSessions implements hitl.WebSessionStore.
func (s *Store) PruneWebSessions(_ context.Context, now time.Time, limit int) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if limit <= 0 {
		limit = 256
	}
	n := 0
	for id, ws := range s.webSessions {
		if n >= limit {
			break
		}
		if ws.Expired(now) {
			delete(s.webSessions, id)
			n++
		}
	}
	return n, nil
}
