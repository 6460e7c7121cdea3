package store

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	bolt "go.etcd.io/bbolt"
)

// The email edge's outbox (hitl.MailOutbox).
var (
	bucketMailMeta = []byte("mail_meta") // "cursor" → uint64 BE
	bucketMail     = []byte("mail")      // seq BE → mail JSON
	bucketMailDue  = []byte("mail_due")  // nextAt ‖ seq BE → ""
)

var _ hitl.MailOutbox = (*DB)(nil)

func mailDueKey(m hitl.Mail) []byte {
	k := binary.BigEndian.AppendUint64(nil, timeKey(m.NextAt))
	return binary.BigEndian.AppendUint64(k, m.Seq)
}

// MailCursor implements hitl.MailOutbox.
func (db *DB) MailCursor(ctx context.Context) (uint64, error) {
	var cur uint64
	err := db.view(ctx, "mail cursor", func(tx *bolt.Tx) error {
		if v := tx.Bucket(bucketMailMeta).Get(keyCursor); len(v) == 8 {
			cur = binary.BigEndian.Uint64(v)
		}
		return nil
	})
	return cur, err
}

// EnqueueMail implements hitl.MailOutbox.
func (db *DB) EnqueueMail(ctx context.Context, cursor uint64, ms []hitl.Mail) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return db.write(func(tx *bolt.Tx) error {
		var stored uint64
		if v := tx.Bucket(bucketMailMeta).Get(keyCursor); len(v) == 8 {
			stored = binary.BigEndian.Uint64(v)
		}
		b := tx.Bucket(bucketMail)
		for i := range ms {
			ms[i].Seq = 0
			if ms[i].Event != 0 && ms[i].Event <= stored {
				continue // enqueued already
			}
			seq, err := b.NextSequence()
			if err != nil {
				return fmt.Errorf("store: enqueue mail: %w", err)
			}
			ms[i].Seq = seq
			if err := putMail(tx, ms[i]); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketMailMeta).Put(keyCursor, u64(max(stored, cursor)))
	})
}

func putMail(tx *bolt.Tx, m hitl.Mail) error {
	data, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("store: encode mail: %w", err)
	}
	if err := tx.Bucket(bucketMail).Put(u64(m.Seq), data); err != nil {
		return fmt.Errorf("store: put mail: %w", err)
	}
	return tx.Bucket(bucketMailDue).Put(mailDueKey(m), []byte{})
}

func getMail(tx *bolt.Tx, seq uint64) (hitl.Mail, bool, error) {
	v := tx.Bucket(bucketMail).Get(u64(seq))
	if v == nil {
		return hitl.Mail{}, false, nil
	}
	var m hitl.Mail
	if err := json.Unmarshal(v, &m); err != nil {
		return m, false, fmt.Errorf("store: decode mail %d: %w", seq, err)
	}
	return m, true, nil
}

// ClaimMail implements hitl.MailOutbox: it reads mail_due up to now and
// moves what it returns to until.
func (db *DB) ClaimMail(ctx context.Context, now, until time.Time, limit int) ([]hitl.Mail, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Nothing due (the mailer's usual poll): a read, no commit.
	var due bool
	if err := db.view(ctx, "due mail", func(tx *bolt.Tx) error {
		k, _ := tx.Bucket(bucketMailDue).Cursor().First()
		due = len(k) == 16 && binary.BigEndian.Uint64(k) <= timeKey(now)
		return nil
	}); err != nil || !due {
		return []hitl.Mail{}, err
	}
	out := []hitl.Mail{}
	err := db.write(func(tx *bolt.Tx) error {
		out = out[:0]
		end := timeKey(now)
		c := tx.Bucket(bucketMailDue).Cursor()
		for k, _ := c.First(); k != nil && len(k) == 16 && binary.BigEndian.Uint64(k) <= end; k, _ = c.Next() {
			m, ok, err := getMail(tx, binary.BigEndian.Uint64(k[8:]))
			if err != nil {
				return err
			}
			if ok {
				out = append(out, m)
			}
			if limit > 0 && len(out) == limit {
				break
			}
		}
		due := tx.Bucket(bucketMailDue)
		for i := range out {
			if err := due.Delete(mailDueKey(out[i])); err != nil {
				return err
			}
			out[i].NextAt = until
			out[i].Claim++
			if err := putMail(tx, out[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: claim mail: %w", err)
	}
	return out, nil
}

// CompleteMail implements hitl.MailOutbox.
func (db *DB) CompleteMail(ctx context.Context, m hitl.Mail) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return db.write(func(tx *bolt.Tx) error {
		old, ok, err := getMail(tx, m.Seq)
		if err != nil || !ok {
			return err
		}
		if err := hitl.MailClaimHeld(old, m); err != nil {
			return err
		}
		if err := tx.Bucket(bucketMailDue).Delete(mailDueKey(old)); err != nil {
			return err
		}
		return tx.Bucket(bucketMail).Delete(u64(m.Seq))
	})
}

// RetryMail implements hitl.MailOutbox.
func (db *DB) RetryMail(ctx context.Context, m hitl.Mail) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return db.write(func(tx *bolt.Tx) error {
		old, ok, err := getMail(tx, m.Seq)
		if err != nil {
			return err
		}
		if !ok {
			return fault.Errorf(fault.ENOTFOUND, "mail %d is not queued", m.Seq)
		}
		if err := hitl.MailClaimHeld(old, m); err != nil {
			return err
		}
		if err := tx.Bucket(bucketMailDue).Delete(mailDueKey(old)); err != nil {
			return err
		}
		old.Attempts, old.NextAt, old.LastError = m.Attempts, m.NextAt, m.LastError
		return putMail(tx, old)
	})
}

// view runs fn in a read transaction.
func (db *DB) view(ctx context.Context, what string, fn func(*bolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := db.bolt.View(fn); err != nil {
		return fmt.Errorf("store: %s: %w", what, err)
	}
	return nil
}
