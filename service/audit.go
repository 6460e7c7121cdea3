package service

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
)

// Audit is the audit trail (hitl.AuditRecord): admins read and verify it;
// retention prunes it behind a signed checkpoint.
type Audit struct {
	trail  hitl.AuditStore // nil: no audit trail
	key    []byte          // signs the checkpoints of pruned records (nil: never pruned)
	clock  hitl.Clock
	access access.Access
	guard  gate
}

// AuditConfig is what the Audit uses (ServiceConfig's AuditTrail and
// AuditKey).
type AuditConfig struct {
	Trail  hitl.AuditStore
	Key    []byte
	Clock  hitl.Clock
	Access access.Access
	Guard  *Guard
}

// NewAudit returns the audit trail's part.
func NewAudit(cfg AuditConfig) *Audit {
	if cfg.Clock == nil {
		cfg.Clock = hitl.SystemClock{}
	}
	return &Audit{trail: cfg.Trail, key: cfg.Key, clock: cfg.Clock, access: cfg.Access, guard: cfg.Guard}
}

// withEdge records on ev the edge ctx came through.
func withEdge(ctx context.Context, ev *hitl.Event) *hitl.Event {
	ev.Edge = auth.EdgeFrom(ctx)
	return ev
}

// AuditKeyOf derives the key that signs audit checkpoints from the seal
// key (the file replicas share): HMAC-SHA256(sealKey, "hitl audit
// checkpoint key"), so the seal key itself signs nothing.
func AuditKeyOf(sealKey []byte) []byte {
	m := hmac.New(sha256.New, sealKey)
	m.Write([]byte("hitl audit checkpoint key"))
	return m.Sum(nil)
}

func checkpointMAC(key []byte, seq uint64, hash string) string {
	m := hmac.New(sha256.New, key)
	m.Write(hitl.AuditCheckpointMessage(seq, hash))
	return hex.EncodeToString(m.Sum(nil))
}

// trailOff is the error of an audit trail that is not wired.
func trailOff() error {
	return fault.Errorf(fault.EINVALID, "this service keeps no audit trail")
}

// appendAudit appends r to the trail (nothing without one).
func (s *Audit) appendAudit(ctx context.Context, r *hitl.AuditRecord) error {
	if s.trail == nil {
		return nil
	}
	return s.trail.AppendAudit(context.WithoutCancel(ctx), r)
}

// authorize lets admins read the trail (access: ActionAudit); a refusal
// is audited.
func (s *Audit) authorize(ctx context.Context) error {
	p := auth.PrincipalFrom(ctx)
	if err := s.access.Authorize(p, auth.ActionAudit, nil); err != nil {
		return s.guard.refused(ctx, p, auth.ActionAudit, &hitl.Question{}, err)
	}
	if s.trail == nil {
		return trailOff()
	}
	return nil
}

// Records returns a page of the trail (GET /api/audit), for admins.
func (s *Audit) Records(ctx context.Context, f hitl.AuditFilter) ([]*hitl.AuditRecord, error) {
	if err := s.authorize(ctx); err != nil {
		return nil, err
	}
	return s.trail.AuditRecords(ctx, f)
}

// Verify checks the whole chain (GET /api/audit/verify), for admins: the
// verdict names the first record changed, removed or reordered.
func (s *Audit) Verify(ctx context.Context) (hitl.AuditVerdict, error) {
	if err := s.authorize(ctx); err != nil {
		return hitl.AuditVerdict{}, err
	}
	return VerifyTrail(ctx, s.trail, s.key)
}

// VerifyTrail verifies the chain trail holds, checkpoint signed under key.
func VerifyTrail(ctx context.Context, trail hitl.AuditStore, key []byte) (hitl.AuditVerdict, error) {
	head, cp, err := trail.AuditHead(ctx)
	if err != nil {
		return hitl.AuditVerdict{}, err
	}
	verdict := hitl.AuditVerdict{Head: head, Checkpoint: cp}
	v := hitl.NewAuditVerifier(cp, func(c hitl.AuditCheckpoint) bool {
		return key != nil && hmac.Equal([]byte(c.MAC), []byte(checkpointMAC(key, c.Seq, c.Hash)))
	})
	f := hitl.AuditFilter{Limit: 1000}
	for {
		page, err := trail.AuditRecords(ctx, f)
		if err != nil {
			return verdict, err
		}
		for _, r := range page {
			verdict.Records++
			v.Add(r)
			f.After = max(f.After, r.Seq)
		}
		if len(page) < f.PageSize() {
			break
		}
	}
	verdict.Break = v.End(head)
	return verdict, nil
}

// PruneAudit deletes the records older than before, keeping a checkpoint
// signed with the audit key that stands for them; without a key (no seal
// key file: a key made at start would not verify after a restart) it
// prunes nothing. It keeps the head record, and reads at most limit
// records.
func (s *Audit) PruneAudit(ctx context.Context, before time.Time, limit int) (int, error) {
	if s.trail == nil || s.key == nil {
		return 0, nil
	}
	head, cp, err := s.trail.AuditHead(ctx)
	if err != nil {
		return 0, err
	}
	after := uint64(0)
	if cp != nil {
		after = cp.Seq
	}
	page, err := s.trail.AuditRecords(ctx, hitl.AuditFilter{After: after, Limit: limit})
	if err != nil {
		return 0, err
	}
	var last *hitl.AuditRecord
	for _, r := range page {
		if !r.At.Before(before) || r.Seq >= head.Seq {
			break
		}
		last = r
	}
	if last == nil {
		return 0, nil
	}
	return s.trail.PruneAudit(ctx, hitl.AuditCheckpoint{Seq: last.Seq, Hash: last.Hash, At: s.clock.Now(),
		MAC: checkpointMAC(s.key, last.Seq, last.Hash)})
}

// WebhookFailed audits a webhook delivery given up (the worker's Failed).
// A question's callbackUrl is named so, not by its URL (it may hold a
// secret).
func (s *Audit) WebhookFailed(ctx context.Context, d hitl.WebhookDelivery) error {
	target := d.Endpoint
	if target == "" {
		target = "callbackUrl"
	}
	return s.appendAudit(ctx, &hitl.AuditRecord{At: s.clock.Now(), Kind: hitl.AuditWebhookFailed, Actor: auth.ActorSystem,
		EventSeq: d.EventSeq, RunID: d.RunID, QuestionID: d.QuestionID, Target: target, Reason: d.LastError, Count: d.Attempts})
}

var _ hitl.AuditService = (*Audit)(nil)
