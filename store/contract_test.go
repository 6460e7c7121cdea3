package store

import (
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/storetest"
)

// TestStoreContract runs every part of hitl.Store's contract
// (TestStoreContract/QuestionStore, …/RunStore, …).
func TestStoreContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) hitl.Store { return openTestDB(t) })
}

func TestOutboxContract(t *testing.T) {
	storetest.Outbox(t, func(t *testing.T) hitl.Outbox { return openTestDB(t) })
}

func TestMailOutboxContract(t *testing.T) {
	storetest.MailOutbox(t, func(t *testing.T) hitl.MailOutbox { return openTestDB(t) })
}

func TestRollupContract(t *testing.T) {
	storetest.RunRollups(t, func(t *testing.T) storetest.RollupBackend { return openTestDB(t) })
}

func TestAuditContract(t *testing.T) {
	storetest.RunAudit(t, func(t *testing.T) storetest.AuditBackend { return openTestDB(t) })
}
