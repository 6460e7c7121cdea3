package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/hitlbot/hitl"
	bolt "go.etcd.io/bbolt"
)

var keyCursor = []byte("cursor")

var _ hitl.SlackOutbox = (*DB)(nil)

// SlackCursor implements hitl.SlackOutbox.
func (db *DB) SlackCursor(ctx context.Context) (uint64, error) {
	var cur uint64
	err := db.bolt.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(bucketSlackMeta).Get(keyCursor); len(v) == 8 {
			cur = binary.BigEndian.Uint64(v)
		}
		return nil
	})
	return cur, err
}

// EnqueueSlack implements hitl.SlackOutbox.
func (db *DB) EnqueueSlack(ctx context.Context, cursor uint64, tasks []hitl.SlackTask) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketSlackTasks)
		for i := range tasks {
			seq, err := b.NextSequence()
			if err != nil {
				return err
			}
			tasks[i].Seq = seq
			data, err := json.Marshal(tasks[i])
			if err != nil {
				return err
			}
			if err := b.Put(u64(seq), data); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketSlackMeta).Put(keyCursor, u64(cursor))
	})
	if err != nil {
		return fmt.Errorf("store: enqueue slack tasks: %w", err)
	}
	return nil
}

// SlackTasks implements hitl.SlackOutbox.
func (db *DB) SlackTasks(ctx context.Context) ([]hitl.SlackTask, error) {
	var out []hitl.SlackTask
	err := db.bolt.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketSlackTasks).ForEach(func(k, v []byte) error {
			var t hitl.SlackTask
			if err := json.Unmarshal(v, &t); err != nil {
				return fmt.Errorf("decode slack task %d: %w", binary.BigEndian.Uint64(k), err)
			}
			out = append(out, t)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("store: slack tasks: %w", err)
	}
	return out, nil
}

// CompleteSlackTask implements hitl.SlackOutbox.
func (db *DB) CompleteSlackTask(ctx context.Context, t hitl.SlackTask, msg *hitl.SlackMessage) error {
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		if err := tx.Bucket(bucketSlackTasks).Delete(u64(t.Seq)); err != nil {
			return err
		}
		if msg == nil {
			return nil
		}
		data, err := json.Marshal(msg)
		if err != nil {
			return err
		}
		ref := joinKey(msg.QuestionID, msg.Target)
		if err := tx.Bucket(bucketSlackMessages).Put(ref, data); err != nil {
			return err
		}
		return tx.Bucket(bucketSlackByTS).Put(joinKey(msg.Channel, msg.TS), ref)
	})
	if err != nil {
		return fmt.Errorf("store: complete slack task %d: %w", t.Seq, err)
	}
	return nil
}

// SlackMessages implements hitl.SlackOutbox.
func (db *DB) SlackMessages(ctx context.Context, questionID string) ([]hitl.SlackMessage, error) {
	var out []hitl.SlackMessage
	prefix := append([]byte(questionID), 0)
	err := db.bolt.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketSlackMessages).Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			var m hitl.SlackMessage
			if err := json.Unmarshal(v, &m); err != nil {
				return err
			}
			out = append(out, m)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: slack messages of %s: %w", questionID, err)
	}
	return out, nil
}

// SlackMessageAt implements hitl.SlackOutbox.
func (db *DB) SlackMessageAt(ctx context.Context, channel, ts string) (hitl.SlackMessage, error) {
	var m hitl.SlackMessage
	found := false
	err := db.bolt.View(func(tx *bolt.Tx) error {
		ref := tx.Bucket(bucketSlackByTS).Get(joinKey(channel, ts))
		if ref == nil {
			return nil
		}
		v := tx.Bucket(bucketSlackMessages).Get(ref)
		if v == nil {
			return nil
		}
		found = true
		return json.Unmarshal(v, &m)
	})
	if err != nil {
		return m, fmt.Errorf("store: slack message %s/%s: %w", channel, ts, err)
	}
	if !found {
		return m, hitl.Errorf(hitl.ENOTFOUND, "no question was posted as message %s in %s", ts, channel)
	}
	return m, nil
}

func joinKey(a, b string) []byte {
	k := make([]byte, 0, len(a)+1+len(b))
	k = append(k, a...)
	k = append(k, 0)
	return append(k, b...)
}
