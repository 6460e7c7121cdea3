package main

import (
	"context"
	"os"
	"time"

	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/seal"
	"github.com/hitlbot/hitl/service"
)

// auditKey is the key that signs the audit trail's checkpoints, derived
// from the seal key file; nil without one (the trail is then never
// pruned: a key made at start would not verify after a restart).
func auditKey(cfg config.Config) ([]byte, error) {
	if cfg.SealKeyFile == "" {
		return nil, nil
	}
	b, err := os.ReadFile(cfg.SealKeyFile)
	if err != nil {
		return nil, fault.Errorf(fault.EINVALID, "seal_key_file (HITL_SEAL_KEY_FILE): %v", err)
	}
	key, err := seal.ParseKey(b)
	clear(b)
	if err != nil {
		return nil, fault.Errorf(fault.EINVALID, "seal_key_file (HITL_SEAL_KEY_FILE) %s: %v", cfg.SealKeyFile, err)
	}
	defer clear(key)
	return service.AuditKeyOf(key), nil
}

// pruneAudit prunes the audit records older than the retention behind a
// signed checkpoint (none when retention is 0 or there is no seal key
// file).
func (m *Main) pruneAudit(ctx context.Context) (int, error) {
	keep := time.Duration(m.Config.Retention)
	if keep <= 0 {
		return 0, nil
	}
	return m.Service.Audit.PruneAudit(ctx, m.Clock.Now().Add(-keep), 1000)
}
