package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	bolt "go.etcd.io/bbolt"
)

// The webhook outbox (hitl.WebhookOutbox). A delivery is written with its
// event (appendEvent); only the first pending delivery of each (target,
// run) queue is in webhook_due, so a claim reads only what it may send.
var (
	bucketWebhooks        = []byte("webhooks")          // seq BE → delivery JSON
	bucketWebhookDue      = []byte("webhook_due")       // nextAt ‖ seq BE → target ‖ 0x00 ‖ asker (the head of each queue)
	bucketWebhookQueue    = []byte("webhook_queue")     // target ‖ 0x00 ‖ run ‖ 0x00 ‖ seq BE → "" (pending)
	bucketWebhookByStatus = []byte("webhook_by_status") // status ‖ 0x00 ‖ seq BE → target
	bucketWebhookSettled  = []byte("webhook_settled")   // settledAt ‖ seq BE → "" (delivered or failed)
	bucketWebhookLast     = []byte("webhook_last")      // target → time of the last success, timeKey BE
)

func webhookSeqKey(prefix []byte, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(slices.Clone(prefix), seq)
}

func webhookDueKey(d *hitl.WebhookDelivery) []byte {
	return webhookSeqKey(u64(timeKey(d.NextAt)), d.Seq)
}

func webhookQueuePrefix(d *hitl.WebhookDelivery) []byte {
	k := append([]byte(d.Target()), 0)
	return append(append(k, d.RunID...), 0)
}

func webhookStatusKey(st hitl.WebhookStatus, seq uint64) []byte {
	return webhookSeqKey(append([]byte(st), 0), seq)
}

func webhookSettledKey(d *hitl.WebhookDelivery) []byte {
	return webhookSeqKey(u64(timeKey(*d.SettledAt)), d.Seq)
}

func putWebhook(tx *bolt.Tx, d *hitl.WebhookDelivery) error {
	data, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("encode webhook delivery: %w", err)
	}
	return tx.Bucket(bucketWebhooks).Put(u64(d.Seq), data)
}

func getWebhook(tx *bolt.Tx, seq uint64) (hitl.WebhookDelivery, error) {
	var d hitl.WebhookDelivery
	v := tx.Bucket(bucketWebhooks).Get(u64(seq))
	if v == nil {
		return d, fault.Errorf(fault.ENOTFOUND, "webhook delivery %d is not stored", seq)
	}
	if err := json.Unmarshal(v, &d); err != nil {
		return d, fmt.Errorf("decode webhook delivery %d: %w", seq, err)
	}
	return d, nil
}

// enqueueWebhooks writes ev's deliveries (appendEvent, after ev got its
// Seq).
func enqueueWebhooks(tx *bolt.Tx, ev *hitl.Event) error {
	for i := range ev.Webhooks {
		d := &ev.Webhooks[i]
		d.EventSeq, d.Status, d.Claim, d.Attempts = ev.Seq, hitl.WebhookPending, 0, 0
		if err := enqueueWebhook(tx, d); err != nil {
			return err
		}
	}
	return nil
}

// enqueueWebhook gives d the next seq and writes it at the end of its
// queue: due when it is the queue's head.
func enqueueWebhook(tx *bolt.Tx, d *hitl.WebhookDelivery) error {
	b := tx.Bucket(bucketWebhooks)
	b.FillPercent = appendFill
	seq, err := b.NextSequence()
	if err != nil {
		return fmt.Errorf("next webhook sequence: %w", err)
	}
	d.Seq = seq
	if err := putWebhook(tx, d); err != nil {
		return err
	}
	prefix := webhookQueuePrefix(d)
	if err := tx.Bucket(bucketWebhookQueue).Put(webhookSeqKey(prefix, seq), []byte{}); err != nil {
		return err
	}
	if err := tx.Bucket(bucketWebhookByStatus).Put(webhookStatusKey(hitl.WebhookPending, seq), []byte(d.Target())); err != nil {
		return err
	}
	if k, _ := tx.Bucket(bucketWebhookQueue).Cursor().Seek(prefix); binary.BigEndian.Uint64(k[len(k)-8:]) == seq {
		return putDue(tx, d)
	}
	return nil
}

// putDue puts d in webhook_due, with its target and asker (a claim
// leaves out busy targets and askers without decoding their deliveries).
func putDue(tx *bolt.Tx, d *hitl.WebhookDelivery) error {
	v := append(append([]byte(d.Target()), 0), d.Asker...)
	return tx.Bucket(bucketWebhookDue).Put(webhookDueKey(d), v)
}

// dueOf reads a webhook_due value: the delivery's target and asker.
func dueOf(v []byte) (target, asker string) {
	t, a, _ := bytes.Cut(v, []byte{0})
	return string(t), string(a)
}

// ClaimWebhooks implements hitl.WebhookOutbox.
func (db *DB) ClaimWebhooks(ctx context.Context, now, until time.Time, c hitl.WebhookClaim) ([]hitl.WebhookDelivery, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Nothing to claim (the worker's usual poll, or every target with
	// deliveries due busy): a read, no commit.
	out := []hitl.WebhookDelivery{}
	if err := db.view(ctx, "due webhooks", func(tx *bolt.Tx) error {
		var err error
		out, err = dueWebhooks(tx, now, c)
		return err
	}); err != nil || len(out) == 0 {
		return out, err
	}
	err := db.write(func(tx *bolt.Tx) error {
		var err error
		if out, err = dueWebhooks(tx, now, c); err != nil {
			return err
		}
		due := tx.Bucket(bucketWebhookDue)
		for i := range out {
			if err := due.Delete(webhookDueKey(&out[i])); err != nil {
				return err
			}
			out[i].NextAt = until
			out[i].Claim++
			if err := putDue(tx, &out[i]); err != nil {
				return err
			}
			if err := putWebhook(tx, &out[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: claim webhooks: %w", err)
	}
	return out, nil
}

// dueWebhooks reads webhook_due up to now: the deliveries c takes
// (hitl.WebhookClaim). Its cost grows with the due deliveries c refuses,
// besides those returned; none of them is decoded.
func dueWebhooks(tx *bolt.Tx, now time.Time, c hitl.WebhookClaim) ([]hitl.WebhookDelivery, error) {
	out := []hitl.WebhookDelivery{}
	skipTargets, skipAskers, noCallbacks := c.Skip()
	pick := c.Pick()
	end := timeKey(now)
	cur := tx.Bucket(bucketWebhookDue).Cursor()
	for k, v := cur.First(); len(k) == 16 && binary.BigEndian.Uint64(k) <= end && !pick.Full(); k, v = cur.Next() {
		target, asker := dueOf(v)
		if slices.Contains(skipTargets, target) {
			continue
		}
		if hitl.IsCallbackTarget(target) && (noCallbacks || slices.Contains(skipAskers, asker)) {
			continue
		}
		if !pick.Take(target, asker) {
			continue
		}
		d, err := getWebhook(tx, binary.BigEndian.Uint64(k[8:]))
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// SettleWebhook implements hitl.WebhookOutbox.
func (db *DB) SettleWebhook(ctx context.Context, d hitl.WebhookDelivery) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return db.write(func(tx *bolt.Tx) error {
		old, err := getWebhook(tx, d.Seq)
		if err != nil {
			return err
		}
		if err := hitl.WebhookClaimHeld(old, d); err != nil {
			return err
		}
		due := tx.Bucket(bucketWebhookDue)
		if err := due.Delete(webhookDueKey(&old)); err != nil {
			return err
		}
		old.Status, old.Attempts, old.NextAt, old.LastError, old.LastCode, old.SettledAt = d.Status, d.Attempts, d.NextAt, d.LastError, d.LastCode, d.SettledAt
		if old.Status == hitl.WebhookPending {
			if err := putDue(tx, &old); err != nil {
				return err
			}
			return putWebhook(tx, &old)
		}
		if old.SettledAt == nil {
			return fault.Errorf(fault.EINVALID, "webhook delivery %d is %s without a settling time", d.Seq, d.Status)
		}
		if err := putWebhook(tx, &old); err != nil {
			return err
		}
		return settledWebhook(tx, &old)
	})
}

// settledWebhook moves d, no longer pending, out of its queue and lets
// the next of the queue go.
func settledWebhook(tx *bolt.Tx, d *hitl.WebhookDelivery) error {
	target := []byte(d.Target())
	byStatus := tx.Bucket(bucketWebhookByStatus)
	if err := byStatus.Delete(webhookStatusKey(hitl.WebhookPending, d.Seq)); err != nil {
		return err
	}
	if err := byStatus.Put(webhookStatusKey(d.Status, d.Seq), target); err != nil {
		return err
	}
	if err := tx.Bucket(bucketWebhookSettled).Put(webhookSettledKey(d), []byte{}); err != nil {
		return err
	}
	if d.Status == hitl.WebhookDelivered {
		if err := tx.Bucket(bucketWebhookLast).Put(target, u64(timeKey(*d.SettledAt))); err != nil {
			return err
		}
	}
	queue := tx.Bucket(bucketWebhookQueue)
	prefix := webhookQueuePrefix(d)
	if err := queue.Delete(webhookSeqKey(prefix, d.Seq)); err != nil {
		return err
	}
	k, _ := queue.Cursor().Seek(prefix)
	if k == nil || !bytes.HasPrefix(k, prefix) || len(k) != len(prefix)+8 {
		return nil
	}
	next, err := getWebhook(tx, binary.BigEndian.Uint64(k[len(prefix):]))
	if err != nil {
		return err
	}
	return putDue(tx, &next)
}

// WebhookDelivery implements hitl.WebhookOutbox.
func (db *DB) WebhookDelivery(ctx context.Context, seq uint64) (hitl.WebhookDelivery, error) {
	var d hitl.WebhookDelivery
	err := db.view(ctx, "webhook delivery", func(tx *bolt.Tx) error {
		var err error
		d, err = getWebhook(tx, seq)
		return err
	})
	if fault.Code(err) == fault.ENOTFOUND {
		return d, fault.Errorf(fault.ENOTFOUND, "webhook delivery %d is not stored", seq)
	}
	return d, err
}

// WebhookDeliveries implements hitl.WebhookOutbox: newest first, from
// webhooks (every status) or webhook_by_status.
func (db *DB) WebhookDeliveries(ctx context.Context, f hitl.WebhookFilter) ([]hitl.WebhookDelivery, error) {
	out := []hitl.WebhookDelivery{}
	err := db.view(ctx, "webhook deliveries", func(tx *bolt.Tx) error {
		var prefix []byte
		c := tx.Bucket(bucketWebhooks).Cursor()
		if f.Status != "" {
			prefix = append([]byte(f.Status), 0)
			c = tx.Bucket(bucketWebhookByStatus).Cursor()
		}
		var k []byte
		if f.Before == 0 {
			k, _ = c.Seek(append(slices.Clone(prefix), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff))
			if k == nil {
				k, _ = c.Last()
			} else {
				k, _ = c.Prev()
			}
		} else {
			k, _ = c.Seek(webhookSeqKey(prefix, f.Before))
			if k == nil {
				k, _ = c.Last()
			} else {
				k, _ = c.Prev()
			}
		}
		for ; k != nil && bytes.HasPrefix(k, prefix) && len(k) == len(prefix)+8 && len(out) < f.PageSize(); k, _ = c.Prev() {
			d, err := getWebhook(tx, binary.BigEndian.Uint64(k[len(prefix):]))
			if err != nil {
				return err
			}
			out = append(out, d)
		}
		return nil
	})
	return out, err
}

// ReplayWebhook implements hitl.WebhookOutbox.
func (db *DB) ReplayWebhook(ctx context.Context, seq uint64, now time.Time) (hitl.WebhookDelivery, error) {
	if err := ctx.Err(); err != nil {
		return hitl.WebhookDelivery{}, err
	}
	var d hitl.WebhookDelivery
	err := db.write(func(tx *bolt.Tx) error {
		old, err := getWebhook(tx, seq)
		if err != nil {
			return err
		}
		d = hitl.WebhookReplayOf(old, now)
		return enqueueWebhook(tx, &d)
	})
	return d, err
}

// WebhookStats implements hitl.WebhookOutbox: it walks the pending and
// failed parts of webhook_by_status and reads webhook_last.
func (db *DB) WebhookStats(ctx context.Context) ([]hitl.WebhookTargetStats, error) {
	var tally hitl.WebhookTally
	err := db.view(ctx, "webhook stats", func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketWebhookByStatus).Cursor()
		for _, st := range []hitl.WebhookStatus{hitl.WebhookPending, hitl.WebhookFailed} {
			prefix := append([]byte(st), 0)
			for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
				tally.Add(string(v), st, 1)
			}
		}
		return tx.Bucket(bucketWebhookLast).ForEach(func(k, v []byte) error {
			if len(v) == 8 {
				tally.Succeeded(string(k), time.Unix(0, int64(binary.BigEndian.Uint64(v)^1<<63)))
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return tally.Stats(), nil
}

// PruneWebhooks implements hitl.WebhookOutbox: it reads webhook_settled
// up to before.
func (db *DB) PruneWebhooks(ctx context.Context, before time.Time, limit int) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	// Nothing settled before (the sweep's usual call): a read, no commit.
	var any bool
	if err := db.view(ctx, "settled webhooks", func(tx *bolt.Tx) error {
		k, _ := tx.Bucket(bucketWebhookSettled).Cursor().First()
		any = len(k) == 16 && binary.BigEndian.Uint64(k) < timeKey(before)
		return nil
	}); err != nil || !any {
		return 0, err
	}
	n := 0
	err := db.write(func(tx *bolt.Tx) error {
		n = 0
		c := tx.Bucket(bucketWebhookSettled).Cursor()
		end := timeKey(before)
		for k, _ := c.First(); len(k) == 16 && binary.BigEndian.Uint64(k) < end && n < limit; k, _ = c.First() {
			seq := binary.BigEndian.Uint64(k[8:])
			d, err := getWebhook(tx, seq)
			if err != nil && fault.Code(err) != fault.ENOTFOUND {
				return err
			}
			if err := tx.Bucket(bucketWebhookByStatus).Delete(webhookStatusKey(d.Status, seq)); err != nil {
				return err
			}
			if err := tx.Bucket(bucketWebhooks).Delete(u64(seq)); err != nil {
				return err
			}
			if err := c.Delete(); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}
