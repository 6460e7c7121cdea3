package memstore

import (
	"context"
	"encoding/json"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
)

var _ hitl.AuditStore = (*Store)(nil)

// audit is the audit trail: records kept as their JSON, as a database
// would (a reader gets its own copy).
type audit struct {
	records [][]byte
	head    hitl.AuditHead
	cp      *hitl.AuditCheckpoint
}

func (a *audit) append(r *hitl.AuditRecord) {
	r.Chain(a.head)
	a.head = hitl.AuditHead{Seq: r.Seq, Hash: r.Hash}
	data, _ := json.Marshal(r)
	a.records = append(a.records, data)
}

// AppendAudit implements hitl.AuditStore.
func (s *Store) AppendAudit(_ context.Context, r *hitl.AuditRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.audit.append(r)
	return nil
}

// AuditRecords implements hitl.AuditStore.
func (s *Store) AuditRecords(_ context.Context, f hitl.AuditFilter) ([]*hitl.AuditRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []*hitl.AuditRecord{}
	for _, data := range s.audit.records {
		r := &hitl.AuditRecord{}
		if err := json.Unmarshal(data, r); err != nil {
			return nil, err
		}
		if r.Seq <= f.After || (!f.Since.IsZero() && r.At.Before(f.Since)) {
			continue
		}
		if out = append(out, r); len(out) == f.PageSize() {
			break
		}
	}
	return out, nil
}

// AuditHead implements hitl.AuditStore.
func (s *Store) AuditHead(context.Context) (hitl.AuditHead, *hitl.AuditCheckpoint, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.audit.cp == nil {
		return s.audit.head, nil, nil
	}
	cp := *s.audit.cp
	return s.audit.head, &cp, nil
}

// PruneAudit implements hitl.AuditStore.
func (s *Store) PruneAudit(_ context.Context, cp hitl.AuditCheckpoint) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cp.Seq >= s.audit.head.Seq || (s.audit.cp != nil && cp.Seq < s.audit.cp.Seq) {
		return 0, fault.Errorf(fault.EINVALID, "an audit checkpoint at %d must lie between the last one and the head (%d)", cp.Seq, s.audit.head.Seq)
	}
	n := 0
	for len(s.audit.records) > 0 {
		var r struct{ Seq uint64 }
		_ = json.Unmarshal(s.audit.records[0], &r)
		if r.Seq > cp.Seq {
			break
		}
		s.audit.records = s.audit.records[1:]
		n++
	}
	s.audit.cp = &cp
	return n, nil
}
