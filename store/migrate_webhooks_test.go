package store

import (
	"context"
	"encoding/binary"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// v10Target is the target version 10 kept a delivery's indexes by: a
// callback's host as spelled.
func v10Target(d hitl.WebhookDelivery) string {
	if d.Endpoint != "" {
		return d.Endpoint
	}
	u, _ := url.Parse(d.URL)
	return "callback:" + u.Host
}

// writeV10Indexes rewrites the webhook indexes as version 10 wrote them:
// queues, due heads, statuses and last successes by v10Target, the due
// value the target alone.
func writeV10Indexes(tx *bolt.Tx) error {
	for _, b := range [][]byte{bucketWebhookQueue, bucketWebhookDue, bucketWebhookByStatus, bucketWebhookLast} {
		if err := tx.DeleteBucket(b); err != nil {
			return err
		}
		if _, err := tx.CreateBucket(b); err != nil {
			return err
		}
	}
	heads := map[string]bool{}
	return tx.Bucket(bucketWebhooks).ForEach(func(k, _ []byte) error {
		d, err := getWebhook(tx, binary.BigEndian.Uint64(k))
		if err != nil {
			return err
		}
		target := v10Target(d)
		if err := tx.Bucket(bucketWebhookByStatus).Put(webhookStatusKey(d.Status, d.Seq), []byte(target)); err != nil {
			return err
		}
		switch d.Status {
		case hitl.WebhookPending:
			prefix := append(append(append([]byte(target), 0), d.RunID...), 0)
			if err := tx.Bucket(bucketWebhookQueue).Put(webhookSeqKey(prefix, d.Seq), []byte{}); err != nil {
				return err
			}
			if !heads[string(prefix)] {
				heads[string(prefix)] = true
				return tx.Bucket(bucketWebhookDue).Put(webhookDueKey(&d), []byte(target))
			}
		case hitl.WebhookDelivered:
			return tx.Bucket(bucketWebhookLast).Put([]byte(target), u64(timeKey(*d.SettledAt)))
		}
		return nil
	})
}

// TestMigrateWebhookTargets: a version 10 file kept a callback's queue by
// its host as spelled, so http://LOCALHOST:8080 and
// http://localhost:8080 were two queues, both due. Opening it rebuilds
// the indexes by the normalised target: one queue, sent in seq order; no
// index entry names a version 10 target; the last success moves to the
// normalised target; an endpoint's queue is untouched.
func TestMigrateWebhookTargets(t *testing.T) {
	ctx := context.Background()
	db, err := Open(filepath.Join(t.TempDir(), "hitl.db"))
	require.NoError(t, err)
	cb := func(id, u string) hitl.WebhookDelivery {
		return hitl.WebhookDelivery{ID: id, URL: u, Type: hitl.WebhookQuestionAnswered, RunID: "r1", NextAt: t0, CreatedAt: t0, Body: []byte(`{}`), Asker: "api:agent"}
	}
	ev := &hitl.Event{Type: hitl.EventQuestionAnswered, QuestionID: "q1", RunID: "r1", At: t0, Webhooks: []hitl.WebhookDelivery{
		cb("msg_1", "http://localhost.:8080/done"),
		cb("msg_2", "http://LOCALHOST:8080/a"),
		cb("msg_3", "http://localhost:8080/b"),
		{ID: "msg_4", Endpoint: "ops", Type: hitl.WebhookQuestionAnswered, RunID: "r1", NextAt: t0, CreatedAt: t0, Body: []byte(`{}`)},
	}}
	require.NoError(t, db.AppendEvent(ctx, ev))
	first, err := db.ClaimWebhooks(ctx, t0, t0.Add(time.Minute), hitl.WebhookClaim{Limit: 1})
	require.NoError(t, err)
	require.Len(t, first, 1)
	done := t0.Add(time.Second)
	first[0].Status, first[0].Attempts, first[0].SettledAt = hitl.WebhookDelivered, 1, &done
	require.NoError(t, db.SettleWebhook(ctx, first[0]))

	db = reopenAs(t, db, 10, writeV10Indexes)

	require.NoError(t, db.bolt.View(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketWebhookQueue, bucketWebhookLast} {
			require.NoError(t, tx.Bucket(b).ForEach(func(k, _ []byte) error {
				assert.NotContains(t, string(k), "LOCALHOST", "%s holds a version 10 target", b)
				assert.NotContains(t, string(k), "localhost.", "%s holds a version 10 target", b)
				return nil
			}))
		}
		for _, b := range [][]byte{bucketWebhookDue, bucketWebhookByStatus} {
			require.NoError(t, tx.Bucket(b).ForEach(func(_, v []byte) error {
				target, _ := dueOf(v)
				assert.Contains(t, []string{"ops", "callback:http://localhost:8080"}, target, "%s holds a version 10 target", b)
				return nil
			}))
		}
		return nil
	}))
	now := t0.Add(time.Hour)
	got, err := db.ClaimWebhooks(ctx, now, now.Add(time.Minute), hitl.WebhookClaim{})
	require.NoError(t, err)
	require.Len(t, got, 2, "one callback queue (its head) and the endpoint's")
	assert.Equal(t, "http://LOCALHOST:8080/a", got[0].URL, "the earlier of the two queues that are one now")
	assert.Equal(t, "api:agent", got[0].Asker)
	assert.Equal(t, "ops", got[1].Endpoint)
	again, err := db.ClaimWebhooks(ctx, now, now.Add(time.Minute), hitl.WebhookClaim{})
	require.NoError(t, err)
	require.Empty(t, again, "the next of the queue waits on its head")
	at := now.Add(time.Second)
	got[0].Status, got[0].Attempts, got[0].SettledAt = hitl.WebhookDelivered, 1, &at
	require.NoError(t, db.SettleWebhook(ctx, got[0]))
	next, err := db.ClaimWebhooks(ctx, now, now.Add(time.Minute), hitl.WebhookClaim{})
	require.NoError(t, err)
	require.Len(t, next, 1)
	assert.Equal(t, "http://localhost:8080/b", next[0].URL)

	stats, err := db.WebhookStats(ctx)
	require.NoError(t, err)
	var targets []string
	for _, st := range stats {
		targets = append(targets, st.Target)
		if st.Target == "callback:http://localhost:8080" {
			assert.Equal(t, 1, st.Pending)
			require.NotNil(t, st.LastSuccess)
			assert.True(t, st.LastSuccess.Equal(at))
		}
	}
	assert.Equal(t, []string{"callback:http://localhost:8080", "ops"}, targets)
}
