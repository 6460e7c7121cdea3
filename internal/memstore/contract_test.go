package memstore_test

import (
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/internal/storetest"
)

// TestStoreContract runs every part of hitl.Store's contract
// (TestStoreContract/QuestionStore, …/RunStore, …).
func TestStoreContract(t *testing.T) {
	storetest.Run(t, func(*testing.T) hitl.Store { return memstore.New() })
}

func TestOutboxContract(t *testing.T) {
	storetest.Outbox(t, func(*testing.T) hitl.Outbox { return memstore.NewOutbox() })
}

func TestMailOutboxContract(t *testing.T) {
	storetest.MailOutbox(t, func(*testing.T) hitl.MailOutbox { return memstore.NewMailOutbox() })
}

func TestRollupContract(t *testing.T) {
	storetest.RunRollups(t, func(*testing.T) storetest.RollupBackend { return memstore.New() })
}

func TestAuditContract(t *testing.T) {
	storetest.RunAudit(t, func(*testing.T) storetest.AuditBackend { return memstore.New() })
}
