package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/jackc/pgx/v5"
)

// The webhook outbox (hitl.WebhookOutbox): webhooks holds every delivery
// (its JSON in data; target, run_id, status, next_ns and settled_ns the
// columns it is read by); webhook_last the last success per target.
//
// Replicas: deliveries are written with their events (change.flush).
// Claimers lock the due heads of queues with FOR UPDATE SKIP LOCKED and
// move them to the claim's end in the same transaction, so each
// delivery is claimed by one replica at a time; a delivery is a queue's
// head when no pending delivery of its (target, run) comes before it,
// and the head stays pending (claimed) while it is sent, so the next one
// waits.

// insertWebhooks writes the deliveries of evs, whose Seq are set.
func insertWebhooks(ctx context.Context, tx pgx.Tx, evs []*hitl.Event) error {
	var ds []*hitl.WebhookDelivery
	for _, ev := range evs {
		for i := range ev.Webhooks {
			d := &ev.Webhooks[i]
			d.EventSeq, d.Status, d.Claim, d.Attempts = ev.Seq, hitl.WebhookPending, 0, 0
			ds = append(ds, d)
		}
	}
	if len(ds) == 0 {
		return nil
	}
	return insertWebhookRows(ctx, tx, ds)
}

// insertWebhookRows gives ds their seq and writes them.
func insertWebhookRows(ctx context.Context, tx pgx.Tx, ds []*hitl.WebhookDelivery) error {
	rows, err := tx.Query(ctx, `SELECT nextval(pg_get_serial_sequence('webhooks', 'seq')) FROM generate_series(1, $1)`, len(ds))
	if err != nil {
		return err
	}
	seqs, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return err
	}
	targets, askers, runs, nexts, datas := make([]string, len(ds)), make([]string, len(ds)), make([]string, len(ds)), make([]int64, len(ds)), make([][]byte, len(ds))
	for i, d := range ds {
		d.Seq = uint64(seqs[i])
		if err := nulFree("webhook target", d.Target(), d.RunID, d.Asker); err != nil {
			return err
		}
		data, err := json.Marshal(d)
		if err != nil {
			return fmt.Errorf("encode webhook delivery: %w", err)
		}
		targets[i], askers[i], runs[i], nexts[i], datas[i] = d.Target(), d.Asker, d.RunID, ns(d.NextAt), data
	}
	_, err = tx.Exec(ctx, `INSERT INTO webhooks (seq, target, asker, run_id, status, next_ns, data)
		SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bytea[])`,
		seqs, targets, askers, runs, repeat(string(hitl.WebhookPending), len(ds)), nexts, datas)
	return err
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// dueWebhooksSQL reads a batch of due heads of queues after ($5, $6)
// in (next_ns, seq) order, leaving out the targets in $2, and the
// callbacks of the askers in $3 or all callbacks ($4): what a Claim's
// Skip names. It takes no lock; claimWebhooksSQL locks what was picked.
const dueWebhooksSQL = `SELECT seq, next_ns, target, asker FROM webhooks w
WHERE status = 'pending' AND next_ns <= $1 AND (next_ns, seq) > ($5, $6) AND NOT (target = ANY($2))
  AND (NOT starts_with(target, 'callback:') OR NOT ($4 OR asker = ANY($3)))
  AND NOT EXISTS (SELECT 1 FROM webhooks e WHERE e.status = 'pending' AND e.target = w.target AND e.run_id = w.run_id AND e.seq < w.seq)
ORDER BY next_ns, seq LIMIT $7`

// claimWebhooksSQL locks the deliveries in $1 still due at $2 that no
// other transaction holds (another replica claiming them now).
const claimWebhooksSQL = `SELECT seq, data FROM webhooks
WHERE seq = ANY($1) AND status = 'pending' AND next_ns <= $2
ORDER BY next_ns, seq FOR UPDATE SKIP LOCKED`

// dueBatch is how many due heads dueWebhooksSQL reads at a time.
const dueBatch = 256

// ClaimWebhooks implements hitl.WebhookOutbox: it reads the due heads in
// batches, asks c's Pick to take each, and locks and leases those taken.
func (db *DB) ClaimWebhooks(ctx context.Context, now, until time.Time, c hitl.WebhookClaim) ([]hitl.WebhookDelivery, error) {
	skipTargets, skipAskers, noCallbacks := c.Skip()
	out := []hitl.WebhookDelivery{}
	err := db.write(ctx, "claim webhooks", func(tx pgx.Tx) error {
		pick := c.Pick()
		var picked []int64
		afterNs, afterSeq := int64(math.MinInt64), int64(0)
		for !pick.Full() {
			rows, err := tx.Query(ctx, dueWebhooksSQL, ns(now), skipTargets, skipAskers, noCallbacks, afterNs, afterSeq, dueBatch)
			if err != nil {
				return err
			}
			n := 0
			for rows.Next() {
				var seq, next int64
				var target, asker string
				if err := rows.Scan(&seq, &next, &target, &asker); err != nil {
					rows.Close()
					return err
				}
				n++
				afterNs, afterSeq = next, seq
				if !pick.Full() && pick.Take(target, asker) {
					picked = append(picked, seq)
				}
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			if n < dueBatch {
				break
			}
		}
		if len(picked) == 0 {
			out = out[:0]
			return nil
		}
		rows, err := tx.Query(ctx, claimWebhooksSQL, picked, ns(now))
		if err != nil {
			return err
		}
		got, err := lease(ctx, tx, "webhooks", until, rows, func(d *hitl.WebhookDelivery, seq int64) {
			d.Seq, d.NextAt = uint64(seq), until
			d.Claim++
		})
		out = append(out[:0], got...)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// lockWebhook reads delivery seq, locking its row.
func lockWebhook(ctx context.Context, tx pgx.Tx, seq uint64) (hitl.WebhookDelivery, error) {
	var d hitl.WebhookDelivery
	if seq > math.MaxInt64 {
		return d, fault.Errorf(fault.ENOTFOUND, "webhook delivery %d is not stored", seq)
	}
	var data []byte
	err := tx.QueryRow(ctx, `SELECT data FROM webhooks WHERE seq = $1 FOR UPDATE`, int64(seq)).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return d, fault.Errorf(fault.ENOTFOUND, "webhook delivery %d is not stored", seq)
	} else if err != nil {
		return d, err
	}
	if err := json.Unmarshal(data, &d); err != nil {
		return d, fmt.Errorf("decode webhook delivery %d: %w", seq, err)
	}
	d.Seq = seq
	return d, nil
}

// SettleWebhook implements hitl.WebhookOutbox.
func (db *DB) SettleWebhook(ctx context.Context, d hitl.WebhookDelivery) error {
	return db.write(ctx, fmt.Sprintf("settle webhook delivery %d", d.Seq), func(tx pgx.Tx) error {
		old, err := lockWebhook(ctx, tx, d.Seq)
		if err != nil {
			return err
		}
		if err := hitl.WebhookClaimHeld(old, d); err != nil {
			return err
		}
		old.Status, old.Attempts, old.NextAt, old.LastError, old.LastCode, old.SettledAt = d.Status, d.Attempts, d.NextAt, d.LastError, d.LastCode, d.SettledAt
		var settled *int64
		if old.Status != hitl.WebhookPending {
			if old.SettledAt == nil {
				return fault.Errorf(fault.EINVALID, "webhook delivery %d is %s without a settling time", d.Seq, d.Status)
			}
			s := ns(*old.SettledAt)
			settled = &s
		}
		data, err := json.Marshal(old)
		if err != nil {
			return fmt.Errorf("encode webhook delivery: %w", err)
		}
		if _, err := tx.Exec(ctx, `UPDATE webhooks SET status = $2, next_ns = $3, settled_ns = $4, data = $5 WHERE seq = $1`,
			int64(d.Seq), string(old.Status), ns(old.NextAt), settled, data); err != nil {
			return err
		}
		if old.Status == hitl.WebhookDelivered {
			_, err = tx.Exec(ctx, `INSERT INTO webhook_last (target, at_ns) VALUES ($1, $2)
				ON CONFLICT (target) DO UPDATE SET at_ns = greatest(webhook_last.at_ns, excluded.at_ns)`, old.Target(), *settled)
		}
		return err
	})
}

// WebhookDelivery implements hitl.WebhookOutbox.
func (db *DB) WebhookDelivery(ctx context.Context, seq uint64) (hitl.WebhookDelivery, error) {
	var d hitl.WebhookDelivery
	if seq > math.MaxInt64 {
		return d, fault.Errorf(fault.ENOTFOUND, "webhook delivery %d is not stored", seq)
	}
	var data []byte
	err := db.pool.QueryRow(ctx, `SELECT data FROM webhooks WHERE seq = $1`, int64(seq)).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return d, fault.Errorf(fault.ENOTFOUND, "webhook delivery %d is not stored", seq)
	} else if err != nil {
		return d, classify("webhook delivery", err)
	}
	if err := json.Unmarshal(data, &d); err != nil {
		return d, fmt.Errorf("postgres: decode webhook delivery %d: %w", seq, err)
	}
	d.Seq = seq
	return d, nil
}

// WebhookDeliveries implements hitl.WebhookOutbox: newest first, by the
// primary key or webhooks_by_status.
func (db *DB) WebhookDeliveries(ctx context.Context, f hitl.WebhookFilter) ([]hitl.WebhookDelivery, error) {
	before := int64(math.MaxInt64)
	if f.Before > 0 && f.Before < math.MaxInt64 {
		before = int64(f.Before)
	}
	var st *string
	if f.Status != "" {
		s := string(f.Status)
		st = &s
	}
	rows, err := db.pool.Query(ctx, `SELECT seq, data FROM webhooks WHERE ($1::text IS NULL OR status = $1) AND seq < $2 ORDER BY seq DESC LIMIT $3`,
		st, before, f.PageSize())
	if err != nil {
		return nil, classify("webhook deliveries", err)
	}
	out := []hitl.WebhookDelivery{}
	for rows.Next() {
		var seq int64
		var data []byte
		if err := rows.Scan(&seq, &data); err != nil {
			rows.Close()
			return nil, classify("webhook deliveries", err)
		}
		var d hitl.WebhookDelivery
		if err := json.Unmarshal(data, &d); err != nil {
			rows.Close()
			return nil, fmt.Errorf("postgres: decode webhook delivery %d: %w", seq, err)
		}
		d.Seq = uint64(seq)
		out = append(out, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, classify("webhook deliveries", err)
	}
	return out, nil
}

// ReplayWebhook implements hitl.WebhookOutbox.
func (db *DB) ReplayWebhook(ctx context.Context, seq uint64, now time.Time) (hitl.WebhookDelivery, error) {
	var d hitl.WebhookDelivery
	err := db.write(ctx, fmt.Sprintf("replay webhook delivery %d", seq), func(tx pgx.Tx) error {
		old, err := lockWebhook(ctx, tx, seq)
		if err != nil {
			return err
		}
		d = hitl.WebhookReplayOf(old, now)
		return insertWebhookRows(ctx, tx, []*hitl.WebhookDelivery{&d})
	})
	return d, err
}

// WebhookStats implements hitl.WebhookOutbox.
func (db *DB) WebhookStats(ctx context.Context) ([]hitl.WebhookTargetStats, error) {
	var tally hitl.WebhookTally
	err := db.read(ctx, "webhook stats", func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT target, status, count(*) FROM webhooks WHERE status IN ('pending', 'failed') GROUP BY target, status`)
		if err != nil {
			return err
		}
		for rows.Next() {
			var target, status string
			var n int
			if err := rows.Scan(&target, &status, &n); err != nil {
				rows.Close()
				return err
			}
			tally.Add(target, hitl.WebhookStatus(status), n)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		rows, err = tx.Query(ctx, `SELECT target, at_ns FROM webhook_last`)
		if err != nil {
			return err
		}
		for rows.Next() {
			var target string
			var at int64
			if err := rows.Scan(&target, &at); err != nil {
				rows.Close()
				return err
			}
			tally.Succeeded(target, time.Unix(0, at))
		}
		rows.Close()
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return tally.Stats(), nil
}

// PruneWebhooks implements hitl.WebhookOutbox: by webhooks_settled.
func (db *DB) PruneWebhooks(ctx context.Context, before time.Time, limit int) (int, error) {
	var n int64
	err := db.write(ctx, "prune webhooks", func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM webhooks WHERE seq IN (
			SELECT seq FROM webhooks WHERE settled_ns < $1 ORDER BY settled_ns, seq LIMIT $2)`, ns(before), limit)
		n = tag.RowsAffected()
		return err
	})
	return int(n), err
}

// retargetWebhooks is schema 15's step: each callback's target becomes
// its callbackUrl's normalised origin (Delivery.Target), so two queues
// of version 14 that are one receiver are one queue (in seq order), and
// webhook_last's callback rows are rebuilt from the delivered callbacks
// still stored (version 14's rows name no scheme, so they cannot be
// renamed). Its cost grows with the callbacks stored (pruned after
// webhooks_retention).
func retargetWebhooks(ctx context.Context, tx pgx.Tx) error {
	rows, err := tx.Query(ctx, `SELECT seq, target, data FROM webhooks WHERE starts_with(target, 'callback:')`)
	if err != nil {
		return err
	}
	var seqs []int64
	var targets []string
	for rows.Next() {
		var seq int64
		var target string
		var data []byte
		if err := rows.Scan(&seq, &target, &data); err != nil {
			rows.Close()
			return err
		}
		var d hitl.WebhookDelivery
		if err := json.Unmarshal(data, &d); err != nil {
			rows.Close()
			return fmt.Errorf("decode webhook delivery %d: %w", seq, err)
		}
		if t := d.Target(); t != target {
			seqs, targets = append(seqs, seq), append(targets, t)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(seqs) > 0 {
		if _, err := tx.Exec(ctx, `UPDATE webhooks SET target = c.target FROM unnest($1::bigint[], $2::text[]) AS c(seq, target)
			WHERE webhooks.seq = c.seq`, seqs, targets); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(ctx, `DELETE FROM webhook_last WHERE starts_with(target, 'callback:')`); err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `INSERT INTO webhook_last (target, at_ns)
		SELECT target, max(settled_ns) FROM webhooks WHERE status = 'delivered' AND starts_with(target, 'callback:') GROUP BY target`)
	return err
}
