package store

import (
	"encoding/binary"
	"fmt"

	"github.com/hitlbot/hitl"
	bolt "go.etcd.io/bbolt"
)

// migrateWebhooks is schema 11's step: a callback's target is its
// callbackUrl's normalised origin (webhook.CallbackOrigin: version 10
// kept the host as spelled, so LOCALHOST and localhost were two
// targets), and webhook_due holds each head's asker too (callbacks are
// capped per asker). The indexes keyed or valued by target — webhook_queue,
// webhook_due, webhook_by_status, and the callbacks' webhook_last
// entries — are rebuilt from the deliveries, once, in seq order: the
// first pending delivery of each (target, run) queue is its head, due at
// its stored NextAt (a claim the process before held runs out as
// before). Two queues of version 10 that are one now keep their order by
// seq. A callback's last success is the latest settling time of its
// delivered callbacks still stored (version 10's entries name no
// scheme, so they cannot be renamed). Its cost grows with the deliveries
// stored (pruned after webhooks_retention).
func migrateWebhooks(tx *bolt.Tx) error {
	for _, name := range [][]byte{bucketWebhookQueue, bucketWebhookDue, bucketWebhookByStatus} {
		if tx.Bucket(name) != nil {
			if err := tx.DeleteBucket(name); err != nil {
				return fmt.Errorf("reset %s: %w", name, err)
			}
		}
		if _, err := tx.CreateBucket(name); err != nil {
			return fmt.Errorf("create %s: %w", name, err)
		}
	}
	last, err := tx.CreateBucketIfNotExists(bucketWebhookLast)
	if err != nil {
		return fmt.Errorf("create %s: %w", bucketWebhookLast, err)
	}
	var old [][]byte
	if err := last.ForEach(func(k, _ []byte) error {
		if hitl.IsCallbackTarget(string(k)) {
			old = append(old, k)
		}
		return nil
	}); err != nil {
		return err
	}
	for _, k := range old {
		if err := last.Delete(k); err != nil {
			return err
		}
	}
	hooks, err := tx.CreateBucketIfNotExists(bucketWebhooks)
	if err != nil {
		return fmt.Errorf("create %s: %w", bucketWebhooks, err)
	}
	heads := map[string]bool{} // queues whose head is due
	c := hooks.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		d, err := getWebhook(tx, binary.BigEndian.Uint64(k))
		if err != nil {
			return err
		}
		target := []byte(d.Target())
		if err := tx.Bucket(bucketWebhookByStatus).Put(webhookStatusKey(d.Status, d.Seq), target); err != nil {
			return err
		}
		switch d.Status {
		case hitl.WebhookPending:
			prefix := webhookQueuePrefix(&d)
			if err := tx.Bucket(bucketWebhookQueue).Put(webhookSeqKey(prefix, d.Seq), []byte{}); err != nil {
				return err
			}
			if !heads[string(prefix)] {
				heads[string(prefix)] = true
				if err := putDue(tx, &d); err != nil {
					return err
				}
			}
		case hitl.WebhookDelivered:
			if !hitl.IsCallbackTarget(string(target)) || d.SettledAt == nil {
				continue
			}
			at := timeKey(*d.SettledAt)
			if v := last.Get(target); len(v) == 8 && binary.BigEndian.Uint64(v) >= at {
				continue
			}
			if err := last.Put(target, u64(at)); err != nil {
				return err
			}
		}
	}
	return nil
}
