package store

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/hitlbot/hitl"
	bolt "go.etcd.io/bbolt"
)

// Visitor receives the records of a database, one call each (hitl
// migrate copies them into another). A nil function skips that kind.
type Visitor struct {
	Question  func(*hitl.Question) error
	Event     func(*hitl.Event) error
	Run       func(*hitl.Run) error
	Control   func(*hitl.ControlRecord) error
	Learned   func(*hitl.LearnedRule) error
	Delivery  func(hitl.Delivery) error // queued, in Seq order
	Delivered func(hitl.Delivered) error
	Mail      func(hitl.Mail) error            // the mail outbox's, in Seq order
	Webhook   func(hitl.WebhookDelivery) error // the webhook outbox's, in Seq order
	Audit     func(*hitl.AuditRecord) error    // the audit trail, in Seq order
}

// Totals are the state beside the records: the last event's Seq, the
// outbox's and the mail outbox's cursors and the approval policy (nil when
// none is stored).
type Totals struct {
	LastSeq      uint64
	OutboxCursor uint64
	MailCursor   uint64
	Policy       *hitl.PolicyState
	// AuditHead and AuditCheckpoint are the audit chain's head and the
	// signed checkpoint that stands for its pruned records (nil: none).
	AuditHead       hitl.AuditHead
	AuditCheckpoint *hitl.AuditCheckpoint
}

// Walk reads every record of the database in one read transaction (a
// consistent snapshot) and hands each to v.
func (db *DB) Walk(ctx context.Context, v Visitor) (Totals, error) {
	var t Totals
	err := db.bolt.View(func(tx *bolt.Tx) error {
		t.LastSeq = tx.Bucket(bucketEvents).Sequence()
		if c := tx.Bucket(bucketSlackMeta).Get(keyCursor); len(c) == 8 {
			t.OutboxCursor = binary.BigEndian.Uint64(c)
		}
		if c := tx.Bucket(bucketMailMeta).Get(keyCursor); len(c) == 8 {
			t.MailCursor = binary.BigEndian.Uint64(c)
		}
		if p := tx.Bucket(bucketMeta).Get(keyPolicy); p != nil {
			t.Policy = &hitl.PolicyState{}
			if err := json.Unmarshal(p, t.Policy); err != nil {
				return fmt.Errorf("decode policy: %w", err)
			}
		}
		if v := tx.Bucket(bucketAuditMeta).Get(keyAuditHead); v != nil {
			if err := json.Unmarshal(v, &t.AuditHead); err != nil {
				return fmt.Errorf("decode audit head: %w", err)
			}
		}
		if v := tx.Bucket(bucketAuditMeta).Get(keyAuditCheckpoint); v != nil {
			t.AuditCheckpoint = &hitl.AuditCheckpoint{}
			if err := json.Unmarshal(v, t.AuditCheckpoint); err != nil {
				return fmt.Errorf("decode audit checkpoint: %w", err)
			}
		}
		walks := []struct {
			bucket []byte
			fn     func(v []byte) error
		}{
			{bucketQuestions, each(v.Question)},
			{bucketEvents, each(v.Event)},
			{bucketRuns, each(v.Run)},
			{bucketControl, each(v.Control)},
			{bucketLearned, each(v.Learned)},
			{bucketSlackTasks, eachValue(v.Delivery)},
			{bucketSlackMessages, eachValue(v.Delivered)},
			{bucketMail, eachValue(v.Mail)},
			{bucketWebhooks, eachValue(v.Webhook)},
			{bucketAudit, each(v.Audit)},
		}
		for _, w := range walks {
			err := tx.Bucket(w.bucket).ForEach(func(k, val []byte) error {
				if err := ctx.Err(); err != nil {
					return err
				}
				if err := w.fn(val); err != nil {
					return fmt.Errorf("%s %q: %w", w.bucket, k, err)
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	return t, err
}

// each decodes a record into a new T and hands it to fn.
func each[T any](fn func(*T) error) func([]byte) error {
	return func(data []byte) error {
		if fn == nil {
			return nil
		}
		r := new(T)
		if err := json.Unmarshal(data, r); err != nil {
			return err
		}
		return fn(r)
	}
}

func eachValue[T any](fn func(T) error) func([]byte) error {
	return func(data []byte) error {
		if fn == nil {
			return nil
		}
		var r T
		if err := json.Unmarshal(data, &r); err != nil {
			return err
		}
		return fn(r)
	}
}
