package store

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	bolt "go.etcd.io/bbolt"
)

// PendingByType implements hitl.QuestionStore: it counts the keys of each type's
// pending list in by_filter (no question is decoded) and reads the last
// event's Seq in the same read transaction.
func (db *DB) PendingByType(ctx context.Context) (map[hitl.QuestionType]int, uint64, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	counts := map[hitl.QuestionType]int{}
	var seq uint64
	err := db.bolt.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketByFilter).Cursor()
		for _, typ := range hitl.QuestionTypes {
			prefix := append([]byte(typeStatusList(typ, hitl.StatusPending)), 0)
			n := 0
			for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
				n++
			}
			if n > 0 {
				counts[typ] = n
			}
		}
		seq = tx.Bucket(bucketEvents).Sequence()
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("store: count pending questions: %w", err)
	}
	return counts, seq, nil
}

// SettledQuestions implements hitl.QuestionStore: it walks by_settled from since
// (or from the cursor, the key of the last question of the previous page).
func (db *DB) SettledQuestions(ctx context.Context, since time.Time, limit int, cursor string) (hitl.QuestionPage, error) {
	if err := ctx.Err(); err != nil {
		return hitl.QuestionPage{}, err
	}
	size := hitl.QuestionFilter{Limit: limit}.PageSize()
	start := binary.BigEndian.AppendUint64(nil, timeKey(since))
	var after []byte
	if cursor != "" {
		var err error
		if after, err = base64.RawURLEncoding.DecodeString(cursor); err != nil || len(after) <= 8 {
			return hitl.QuestionPage{}, fault.Errorf(fault.EINVALID, "cursor %q does not belong to this list: use the nextCursor of the previous page", cursor)
		}
	}
	page := hitl.QuestionPage{Questions: make([]*hitl.Question, 0, min(size, 64))}
	err := db.bolt.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketBySettled).Cursor()
		k, _ := c.Seek(start)
		if after != nil {
			if bytes.Compare(after, start) < 0 {
				return fault.Errorf(fault.EINVALID, "cursor %q is before the start of this list: use the nextCursor of the previous page, with the same since", cursor)
			}
			if k, _ = c.Seek(after); bytes.Equal(k, after) {
				k, _ = c.Next()
			}
		}
		for ; k != nil; k, _ = c.Next() {
			if len(page.Questions) == size {
				page.NextCursor = base64.RawURLEncoding.EncodeToString(after)
				return nil
			}
			q, err := getQuestion(tx, idAfter(k, 8))
			if err != nil {
				return fmt.Errorf("by_settled entry %x: %w", k, err)
			}
			page.Questions = append(page.Questions, q)
			after = append(after[:0], k...)
		}
		return nil
	})
	if err != nil {
		if fault.Code(err) == fault.EINVALID {
			return hitl.QuestionPage{}, err
		}
		return hitl.QuestionPage{}, fmt.Errorf("store: list settled questions: %w", err)
	}
	return page, nil
}
