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

// The outbox: the cursor (meta 'outbox_cursor'), the queued deliveries
// (deliveries, read by deliveries_by_target) and the records of what was
// delivered (delivered, by question and by message).

// OutboxCursor implements hitl.Outbox.
func (db *DB) OutboxCursor(ctx context.Context) (uint64, error) {
	return readCursor(ctx, db.pool, "outbox_cursor", "outbox cursor")
}

// Enqueue implements hitl.Outbox. A delivery of an event at or before the
// stored cursor was enqueued already (enqueue) and is left out: its
// Seq stays 0.
func (db *DB) Enqueue(ctx context.Context, cursor uint64, ds []hitl.Delivery) error {
	for _, d := range ds {
		if d.Target == "" || nulFree("delivery target", d.Target, d.QuestionID, d.Kind) != nil {
			return fault.Errorf(fault.EINVALID, "delivery target %q is empty or contains a NUL byte", d.Target)
		}
	}
	return db.write(ctx, "enqueue deliveries", func(tx pgx.Tx) error {
		return enqueue(ctx, tx, enqueueLock, "outbox_cursor", cursor, "deliveries", ds,
			func(d *hitl.Delivery) (uint64, *uint64) { return d.Event, &d.Seq },
			func(d *hitl.Delivery, data []byte) error {
				_, err := tx.Exec(ctx, `INSERT INTO deliveries (seq, target, data) VALUES ($1, $2, $3)`, int64(d.Seq), d.Target, data)
				return err
			})
	})
}

// enqueueLock is the advisory lock enqueuers take turns under.
const enqueueLock = 0x6869746f // "hito"

// Targets implements hitl.Outbox: a skip scan of deliveries_by_target,
// one index probe per target returned.
func (db *DB) Targets(ctx context.Context, after string, limit int) ([]string, error) {
	if limit <= 0 {
		return []string{}, nil
	}
	out, err := texts(ctx, db.pool, `WITH RECURSIVE t(target) AS (
			(SELECT target FROM deliveries WHERE target > $1 ORDER BY target LIMIT 1)
			UNION ALL
			SELECT (SELECT d.target FROM deliveries d WHERE d.target > t.target ORDER BY d.target LIMIT 1) FROM t WHERE t.target IS NOT NULL
		) SELECT target FROM t WHERE target IS NOT NULL LIMIT $2`, after, limit)
	if err != nil {
		return nil, classify("delivery targets", err)
	}
	return out, nil
}

// nextDeliverySQL reads a target's oldest delivery: one probe of
// deliveries_by_target.
const nextDeliverySQL = `SELECT data FROM deliveries WHERE target = $1 ORDER BY target, seq LIMIT 1`

// claimSQL takes (or renews) the claim of target $1 for holder $2 until
// $3 (nanoseconds of the database's clock from now), unless another
// holder's claim still runs; it returns a row when the claim is $2's.
const claimSQL = `INSERT INTO delivery_claims AS c (target, holder, until_ns)
	VALUES ($1, $2, (extract(epoch FROM clock_timestamp()) * 1e9)::bigint + $3)
	ON CONFLICT (target) DO UPDATE SET holder = EXCLUDED.holder, until_ns = EXCLUDED.until_ns
	WHERE c.holder = EXCLUDED.holder OR c.until_ns < (extract(epoch FROM clock_timestamp()) * 1e9)::bigint
	RETURNING holder`

// DefaultLease is how long a replica's claim on a target's deliveries
// holds without being renewed: the longest a target waits when the
// replica doing its deliveries dies.
const DefaultLease = 30 * time.Second

// NextDelivery implements hitl.Outbox: one probe of deliveries_by_target,
// under the target's claim. Several replicas share the outbox: the target
// is this process's to deliver while it holds the claim (each read renews
// it for the lease); while another process holds it, the target has
// nothing for this one (ENOTFOUND), so each delivery is done by one
// replica, in order, paced by one. A read renews the claim once less than
// half its lease is left (so most reads write nothing). An emptied queue
// gives the claim up.
func (db *DB) NextDelivery(ctx context.Context, target string) (hitl.Delivery, error) {
	var d hitl.Delivery
	found := false
	err := db.write(ctx, "next delivery to "+target, func(tx pgx.Tx) error {
		found = false
		lease := db.lease.Load()
		// A claim of ours with more than half its lease to run is not
		// renewed: the common read writes nothing (no commit to wait for).
		var fresh, mineBefore bool
		var holder string
		err := tx.QueryRow(ctx, `SELECT holder, holder = $2, holder = $2 AND until_ns > (extract(epoch FROM clock_timestamp()) * 1e9)::bigint + $3::bigint / 2
			FROM delivery_claims WHERE target = $1`, target, db.holder, lease).Scan(&holder, &mineBefore, &fresh)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		// Another holder's claim, lapsed, is taken over: the delivery at
		// the head may have been started by it.
		d.Resumed = holder != "" && !mineBefore
		if !fresh {
			rows, err := tx.Query(ctx, claimSQL, target, db.holder, lease)
			if err != nil {
				return err
			}
			mine := rows.Next()
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			if !mine {
				return nil
			}
		}
		var data []byte
		err = tx.QueryRow(ctx, nextDeliverySQL, target).Scan(&data)
		if errors.Is(err, pgx.ErrNoRows) {
			_, err = tx.Exec(ctx, `DELETE FROM delivery_claims WHERE target = $1 AND holder = $2`, target, db.holder)
			return err
		} else if err != nil {
			return err
		}
		found = true
		return json.Unmarshal(data, &d)
	})
	if err != nil {
		return d, err
	}
	if !found {
		return d, fault.Errorf(fault.ENOTFOUND, "no delivery queued for %s (or another replica is doing them)", target)
	}
	return d, nil
}

// SetLease sets how long this process's claims on targets hold (tests
// shorten it).
func (db *DB) SetLease(d time.Duration) { db.lease.Store(int64(d)) }

// Complete implements hitl.Outbox.
func (db *DB) Complete(ctx context.Context, d hitl.Delivery, rec *hitl.Delivered) error {
	if d.Seq > math.MaxInt64 {
		return fault.Errorf(fault.ENOTFOUND, "no delivery %d", d.Seq)
	}
	var data []byte
	if rec != nil {
		if err := nulFree("delivery record", rec.QuestionID, rec.Target, rec.Channel, rec.TS); err != nil {
			return err
		}
		var err error
		if data, err = json.Marshal(rec); err != nil {
			return fmt.Errorf("postgres: encode delivery record: %w", err)
		}
	}
	return db.write(ctx, fmt.Sprintf("complete delivery %d", d.Seq), func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM deliveries WHERE seq = $1`, int64(d.Seq)); err != nil {
			return err
		}
		if rec == nil {
			return nil
		}
		_, err := tx.Exec(ctx, `INSERT INTO delivered (question_id, target, channel, ts, data) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (question_id, target) DO UPDATE SET channel = EXCLUDED.channel, ts = EXCLUDED.ts, data = EXCLUDED.data`,
			rec.QuestionID, rec.Target, rec.Channel, rec.TS, data)
		return err
	})
}

func decodeDelivered(rows pgx.Rows) ([]hitl.Delivered, error) {
	datas, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	if err != nil {
		return nil, err
	}
	var out []hitl.Delivered
	for _, data := range datas {
		var m hitl.Delivered
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, fmt.Errorf("decode delivery record: %w", err)
		}
		out = append(out, m)
	}
	return out, nil
}

// Delivered implements hitl.Outbox: the primary key's prefix.
func (db *DB) Delivered(ctx context.Context, questionID string) ([]hitl.Delivered, error) {
	if nulFree("question id", questionID) != nil {
		return nil, nil
	}
	rows, err := db.pool.Query(ctx, `SELECT data FROM delivered WHERE question_id = $1 ORDER BY question_id, target`, questionID)
	if err != nil {
		return nil, classify("deliveries of "+questionID, err)
	}
	out, err := decodeDelivered(rows)
	if err != nil {
		return nil, classify("deliveries of "+questionID, err)
	}
	return out, nil
}

// DeliveredAt implements hitl.Outbox: delivered_by_ts.
func (db *DB) DeliveredAt(ctx context.Context, channel, ts string) (hitl.Delivered, error) {
	notFound := fault.Errorf(fault.ENOTFOUND, "no question was delivered as message %s in %s", ts, channel)
	if nulFree("message", channel, ts) != nil {
		return hitl.Delivered{}, notFound
	}
	rows, err := db.pool.Query(ctx, `SELECT data FROM delivered WHERE channel = $1 AND ts = $2 LIMIT 1`, channel, ts)
	if err != nil {
		return hitl.Delivered{}, classify("delivered message", err)
	}
	out, err := decodeDelivered(rows)
	if err != nil {
		return hitl.Delivered{}, classify("delivered message", err)
	}
	if len(out) == 0 {
		return hitl.Delivered{}, notFound
	}
	return out[0], nil
}

// QueueLength implements hitl.Outbox: a count of deliveries (the queue's
// primary key).
func (db *DB) QueueLength(ctx context.Context) (int, error) {
	var n int
	if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM deliveries`).Scan(&n); err != nil {
		return 0, classify("count queued deliveries", err)
	}
	return n, nil
}
