package memstore

import (
	"context"
	"slices"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
)

// PutSignIn implements hitl.SignInStore.
func (s *Store) PutSignIn(_ context.Context, ws *hitl.SignIn, audit ...*hitl.AuditRecord) error {
	if ws == nil || ws.ID == "" {
		return fault.Errorf(fault.EINVALID, "a web sign-in needs an id")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.signIns == nil {
		s.signIns = map[string]hitl.SignIn{}
	}
	s.signIns[ws.ID] = cloneSignIn(*ws)
	for _, r := range audit {
		s.audit.append(r)
	}
	return nil
}

// cloneSignIn copies ws deeply: callers never share the store's slices.
func cloneSignIn(ws hitl.SignIn) hitl.SignIn {
	ws.Principal.Scopes = slices.Clone(ws.Principal.Scopes)
	ws.Principal.Groups = slices.Clone(ws.Principal.Groups)
	return ws
}

// SignIn implements hitl.SignInStore.
func (s *Store) SignIn(_ context.Context, id string) (*hitl.SignIn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws, ok := s.signIns[id]
	if !ok {
		return nil, fault.Errorf(fault.ENOTFOUND, "no web sign-in")
	}
	ws = cloneSignIn(ws)
	return &ws, nil
}

// DeleteSignIn implements hitl.SignInStore.
func (s *Store) DeleteSignIn(_ context.Context, id string, auditOf ...func(*hitl.SignIn) *hitl.AuditRecord) (*hitl.SignIn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws, ok := s.signIns[id]
	if !ok {
		return nil, fault.Errorf(fault.ENOTFOUND, "no web sign-in")
	}
	delete(s.signIns, id)
	for _, f := range auditOf {
		if r := f(&ws); r != nil {
			s.audit.append(r)
		}
	}
	return &ws, nil
}

// PruneSignIns implements hitl.SignInStore.
func (s *Store) PruneSignIns(_ context.Context, now time.Time, limit int) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if limit <= 0 {
		limit = 256
	}
	n := 0
	for id, ws := range s.signIns {
		if n >= limit {
			break
		}
		if ws.Expired(now) {
			delete(s.signIns, id)
			n++
		}
	}
	return n, nil
}
