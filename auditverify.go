package hitl

import "fmt"

// Problems a verification finds, by the record they name.
const (
	AuditChanged   = "changed"    // the record's content no longer has its hash
	AuditRemoved   = "removed"    // the record is missing
	AuditReordered = "reordered"  // the record stands out of its place
	AuditUnsigned  = "checkpoint" // the checkpoint of pruned records is not the service's
)

// AuditBreak names the first record that breaks the chain, and how.
type AuditBreak struct {
	Seq     uint64 `json:"seq"`
	Problem string `json:"problem"`
	Message string `json:"message"`
}

func (b *AuditBreak) Error() string { return b.Message }

// AuditVerdict is what verifying the chain found: Break is nil when it
// holds, from the checkpoint (or record 1) to the head.
type AuditVerdict struct {
	Records    int              `json:"records"`
	Head       AuditHead        `json:"head"`
	Checkpoint *AuditCheckpoint `json:"checkpoint,omitempty"`
	Break      *AuditBreak      `json:"break,omitempty"`
}

// AuditVerifier checks a chain record by record, in the order the store
// holds them (Add), then against the head (End). It is the one rule of
// what a valid chain is.
type AuditVerifier struct {
	next    uint64 // the Seq the next record must have
	prev    string // the Hash it must carry as Prev
	first   uint64 // the first Seq the chain holds
	broken  *AuditBreak
	missing *AuditBreak // a gap: removed, unless the record shows up later
}

// NewAuditVerifier starts a verification after cp (nil: from record 1);
// signed reports whether cp's MAC is the service's.
func NewAuditVerifier(cp *AuditCheckpoint, signed func(AuditCheckpoint) bool) *AuditVerifier {
	v := &AuditVerifier{next: 1}
	if cp != nil {
		v.next, v.prev = cp.Seq+1, cp.Hash
		if signed == nil || !signed(*cp) {
			v.broken = &AuditBreak{Seq: cp.Seq, Problem: AuditUnsigned,
				Message: fmt.Sprintf("the checkpoint of the records pruned up to %d is not signed by this service's key (changed, or signed under another seal key)", cp.Seq)}
		}
	}
	v.first = v.next
	return v
}

// Add checks r, the next record read, and returns the first break found
// so far (nil while the chain holds).
func (v *AuditVerifier) Add(r *AuditRecord) *AuditBreak {
	if v.broken != nil {
		return v.broken
	}
	if v.missing != nil { // looking for the record that left the gap
		if r.Seq == v.missing.Seq {
			v.broken = &AuditBreak{Seq: r.Seq, Problem: AuditReordered,
				Message: fmt.Sprintf("audit record %d was reordered: it stands after record %d", r.Seq, v.next-1)}
		}
		return v.broken
	}
	switch {
	case r.Seq < v.next:
		v.broken = &AuditBreak{Seq: r.Seq, Problem: AuditReordered,
			Message: fmt.Sprintf("audit record %d was reordered: it stands after record %d", r.Seq, v.next-1)}
		return v.broken
	case r.Seq > v.next:
		v.missing = &AuditBreak{Seq: v.next, Problem: AuditRemoved,
			Message: fmt.Sprintf("audit record %d was removed: the record after %d is %d", v.next, v.next-1, r.Seq)}
		return nil
	}
	switch {
	case r.ComputeHash() != r.Hash:
		v.broken = &AuditBreak{Seq: r.Seq, Problem: AuditChanged,
			Message: fmt.Sprintf("audit record %d was changed: its content does not hash to the hash it carries", r.Seq)}
	case r.Prev != v.prev && r.Seq == v.first && v.first > 1:
		v.broken = &AuditBreak{Seq: r.Seq - 1, Problem: AuditUnsigned,
			Message: fmt.Sprintf("audit record %d does not follow the checkpoint of the pruned records", r.Seq)}
	case r.Prev != v.prev:
		v.broken = &AuditBreak{Seq: r.Seq - 1, Problem: AuditChanged,
			Message: fmt.Sprintf("audit record %d was changed: record %d carries another hash for it", r.Seq-1, r.Seq)}
	}
	v.next, v.prev = r.Seq+1, r.Hash
	return v.broken
}

// End checks that the chain read ends at head, and returns the first
// break (nil: the chain holds).
func (v *AuditVerifier) End(head AuditHead) *AuditBreak {
	if v.broken != nil {
		return v.broken
	}
	if v.missing != nil {
		v.broken = v.missing
		return v.broken
	}
	last := v.next - 1
	switch {
	case head.Seq > last:
		v.broken = &AuditBreak{Seq: last + 1, Problem: AuditRemoved,
			Message: fmt.Sprintf("audit record %d was removed: the chain ends at %d, its head is %d", last+1, last, head.Seq)}
	case head.Seq < last:
		v.broken = &AuditBreak{Seq: head.Seq + 1, Problem: AuditChanged,
			Message: fmt.Sprintf("the audit head was changed: it says %d, the chain goes on to %d", head.Seq, last)}
	case head.Hash != v.prev && last > 0:
		v.broken = &AuditBreak{Seq: last, Problem: AuditChanged,
			Message: fmt.Sprintf("audit record %d was changed: the head carries another hash for it", last)}
	}
	return v.broken
}
