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

// The email edge's outbox (hitl.MailOutbox): the cursor (meta
// 'mail_cursor') and the mail owed (mail, read by mail_by_due). The
// next_ns column is when a mail is due; the JSON in data holds the rest.
//
// Replicas: each runs a mailer on the same outbox. Enqueuers take turns
// under an advisory lock and keep only the mail of events after the
// stored cursor; claimers lock due rows with FOR UPDATE SKIP LOCKED and
// move them to the claim's end in the same transaction, so each mail is
// claimed by one replica at a time.

var _ hitl.MailOutbox = (*DB)(nil)

// mailLock is the advisory lock mail enqueuers take turns under.
const mailLock = 0x6869746d // "hitm"

// MailCursor implements hitl.MailOutbox.
func (db *DB) MailCursor(ctx context.Context) (uint64, error) {
	return readCursor(ctx, db.pool, "mail_cursor", "mail cursor")
}

// EnqueueMail implements hitl.MailOutbox: the mail of events after the
// stored cursor (enqueue); the rest keeps Seq 0.
func (db *DB) EnqueueMail(ctx context.Context, cursor uint64, ms []hitl.Mail) error {
	return db.write(ctx, "enqueue mail", func(tx pgx.Tx) error {
		return enqueue(ctx, tx, mailLock, "mail_cursor", cursor, "mail", ms,
			func(m *hitl.Mail) (uint64, *uint64) { return m.Event, &m.Seq },
			func(m *hitl.Mail, data []byte) error {
				_, err := tx.Exec(ctx, `INSERT INTO mail (seq, next_ns, data) VALUES ($1, $2, $3)`, int64(m.Seq), ns(m.NextAt), data)
				return err
			})
	})
}

// claimMailSQL locks up to $2 mails due at $1 (all when $2 is NULL) that
// no other transaction holds, earliest first: mail_by_due's order.
const claimMailSQL = `SELECT seq, data FROM mail WHERE next_ns <= $1 ORDER BY next_ns, seq LIMIT $2 FOR UPDATE SKIP LOCKED`

// ClaimMail implements hitl.MailOutbox: a read of mail_by_due up to now,
// skipping rows another replica is claiming, and the rows moved to until
// in the same transaction.
func (db *DB) ClaimMail(ctx context.Context, now, until time.Time, limit int) ([]hitl.Mail, error) {
	return claim(ctx, db, "mail", until, func(m *hitl.Mail, seq int64) {
		m.Seq, m.NextAt = uint64(seq), until
		m.Claim++
	}, claimMailSQL, ns(now), claimLimit(limit))
}

// CompleteMail implements hitl.MailOutbox.
func (db *DB) CompleteMail(ctx context.Context, m hitl.Mail) error {
	if m.Seq > math.MaxInt64 {
		return nil
	}
	return db.write(ctx, fmt.Sprintf("complete mail %d", m.Seq), func(tx pgx.Tx) error {
		if _, err := heldMail(ctx, tx, m); fault.Code(err) == fault.ENOTFOUND {
			return nil
		} else if err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM mail WHERE seq = $1`, int64(m.Seq))
		return err
	})
}

// RetryMail implements hitl.MailOutbox.
func (db *DB) RetryMail(ctx context.Context, m hitl.Mail) error {
	if m.Seq > math.MaxInt64 {
		return fault.Errorf(fault.ENOTFOUND, "mail %d is not queued", m.Seq)
	}
	return db.write(ctx, fmt.Sprintf("retry mail %d", m.Seq), func(tx pgx.Tx) error {
		old, err := heldMail(ctx, tx, m)
		if err != nil {
			return err
		}
		old.Attempts, old.NextAt, old.LastError = m.Attempts, m.NextAt, m.LastError
		data, err := json.Marshal(old)
		if err != nil {
			return fmt.Errorf("encode mail: %w", err)
		}
		_, err = tx.Exec(ctx, `UPDATE mail SET next_ns = $2, data = $3 WHERE seq = $1`, int64(m.Seq), ns(m.NextAt), data)
		return err
	})
}

// heldMail locks mail m.Seq and returns it when m still holds its claim:
// ENOTFOUND when it is no longer queued, ECONFLICT when it was claimed
// again since m's claim.
func heldMail(ctx context.Context, tx pgx.Tx, m hitl.Mail) (hitl.Mail, error) {
	var data []byte
	err := tx.QueryRow(ctx, `SELECT data FROM mail WHERE seq = $1 FOR UPDATE`, int64(m.Seq)).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return hitl.Mail{}, fault.Errorf(fault.ENOTFOUND, "mail %d is not queued", m.Seq)
	} else if err != nil {
		return hitl.Mail{}, err
	}
	var old hitl.Mail
	if err := json.Unmarshal(data, &old); err != nil {
		return old, fmt.Errorf("decode mail %d: %w", m.Seq, err)
	}
	old.Seq = m.Seq
	return old, hitl.MailClaimHeld(old, m)
}
