package store

import (
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/storetest"
)

func TestStoreContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) hitl.Store { return openTestDB(t) })
}

func TestOutboxContract(t *testing.T) {
	storetest.RunOutbox(t, func(t *testing.T) hitl.Outbox { return openTestDB(t) })
}

func TestMailOutboxContract(t *testing.T) {
	storetest.RunMail(t, func(t *testing.T) hitl.MailOutbox { return openTestDB(t) })
}

func TestWebhookOutboxContract(t *testing.T) {
	storetest.RunWebhooks(t, func(t *testing.T) storetest.WebhookStore { return openTestDB(t) })
}

func TestRollupContract(t *testing.T) {
	storetest.RunRollups(t, func(t *testing.T) storetest.RollupBackend { return openTestDB(t) })
}
