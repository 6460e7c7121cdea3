package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// TestWebhooksOnAnOlderFile: a file written before webhooks (schema 7
// without the webhook buckets, and its questions without callbackUrl)
// opens, and its questions' answers are delivered to the endpoints.
func TestWebhooksOnAnOlderFile(t *testing.T) {
	ctx := context.Background()
	db, err := Open(filepath.Join(t.TempDir(), "hitl.db"))
	require.NoError(t, err)
	old := newService(db, newClock())
	q := ask(t, old, "run-1", 30)
	db = reopenAs(t, db, 7, func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketWebhooks, bucketWebhookDue, bucketWebhookQueue, bucketWebhookByStatus, bucketWebhookSettled, bucketWebhookLast} {
			if err := tx.DeleteBucket(b); err != nil {
				return err
			}
		}
		return nil
	})
	svc := service.NewService(db, service.ServiceConfig{Notifier: notify.New(), Clock: newClock(),
		Webhooks: &hitl.WebhookRoutes{Endpoints: []hitl.WebhookRoute{{Name: "ops", URL: "https://ops.example/", Events: []hitl.WebhookEvent{hitl.WebhookQuestionAnswered}}}}})
	_, err = svc.Questions.Answer(principaltest.As(ctx, "local"), q.ID, hitl.Response{Value: "ok"})
	require.NoError(t, err)
	got, err := db.ClaimWebhooks(ctx, t0.Add(time.Hour), t0.Add(2*time.Hour), hitl.WebhookClaim{})
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, q.ID, got[0].QuestionID)
	require.Equal(t, "ops", got[0].Endpoint)
}
