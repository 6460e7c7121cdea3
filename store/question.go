package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hitlbot/hitl"
	bolt "go.etcd.io/bbolt"
)

// CreateQuestion implements hitl.Store. The question, its index entries,
// its idempotency key and ev are written in one fsync'd transaction, shared
// with concurrent writers.
func (db *DB) CreateQuestion(ctx context.Context, q *hitl.Question, ev *hitl.Event) (*hitl.Question, bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	if q.ID == "" {
		return nil, false, hitl.Errorf(hitl.EINVALID, "question has no id")
	}
	if strings.IndexByte(q.JobID, 0) >= 0 {
		return nil, false, hitl.Errorf(hitl.EINVALID, "job id %q contains a NUL byte", q.JobID)
	}
	data, err := json.Marshal(q)
	if err != nil {
		return nil, false, fmt.Errorf("store: create question %s: encode: %w", q.ID, err)
	}

	// Batch may run this more than once: everything it reports is reset at
	// the top. Domain outcomes (an existing key, a taken id) are reported
	// beside the transaction's error so they do not abort the shared batch.
	var (
		stored  *hitl.Question
		created bool
		domErr  error
	)
	err = db.bolt.Batch(func(tx *bolt.Tx) error {
		stored, created, domErr = nil, false, nil
		if ev != nil {
			ev.Seq = 0
		}
		if q.IdempotencyKey != "" {
			if id := tx.Bucket(bucketIdem).Get(idemKey(q.JobID, q.IdempotencyKey)); id != nil {
				existing, err := getQuestion(tx, string(id))
				if err != nil {
					return fmt.Errorf("idempotency key %q of job %s: %w", q.IdempotencyKey, q.JobID, err)
				}
				stored = existing
				return nil
			}
		}
		if tx.Bucket(bucketQuestions).Get([]byte(q.ID)) != nil {
			domErr = hitl.Errorf(hitl.ECONFLICT, "question %s already exists", q.ID)
			return nil
		}
		if err := putQuestion(tx, q, data, nil); err != nil {
			return err
		}
		if ev != nil {
			if err := appendEvent(tx, ev); err != nil {
				return err
			}
		}
		stored, created = q.Clone(), true
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("store: create question %s: %w", q.ID, err)
	}
	if domErr != nil {
		return nil, false, domErr
	}
	return stored, created, nil
}

// UpdateQuestion implements hitl.Store. fn runs inside the write
// transaction, so a check it makes (still pending?) and the write it
// decides on are atomic. An error from fn is returned as is, after the
// shared commit of the other writers, and nothing of this call is written.
func (db *DB) UpdateQuestion(ctx context.Context, id string, fn func(q *hitl.Question) (*hitl.Event, error)) (*hitl.Question, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var (
		updated *hitl.Question
		domErr  error
	)
	err := db.bolt.Batch(func(tx *bolt.Tx) error {
		updated, domErr = nil, nil
		q, err := getQuestion(tx, id)
		if hitl.ErrorCode(err) == hitl.ENOTFOUND {
			domErr = err
			return nil
		} else if err != nil {
			return err
		}
		old := indexOf(q)
		ev, err := fn(q)
		if err != nil {
			domErr = err
			return nil
		}
		if q.ID != id {
			domErr = fmt.Errorf("store: update question %s: fn changed its id to %q", id, q.ID)
			return nil
		}
		data, err := json.Marshal(q)
		if err != nil {
			return fmt.Errorf("encode: %w", err)
		}
		if err := putQuestion(tx, q, data, &old); err != nil {
			return err
		}
		if ev != nil {
			if err := appendEvent(tx, ev); err != nil {
				return err
			}
		}
		updated = q
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: update question %s: %w", id, err)
	}
	if domErr != nil {
		return nil, domErr
	}
	return updated, nil
}

// Question implements hitl.Store.
func (db *DB) Question(ctx context.Context, id string) (*hitl.Question, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tx, err := db.bolt.Begin(false)
	if err != nil {
		return nil, fmt.Errorf("store: read question %s: %w", id, err)
	}
	defer func() { _ = tx.Rollback() }()
	q, err := getQuestion(tx, id)
	if err != nil && hitl.ErrorCode(err) == hitl.EINTERNAL {
		return nil, fmt.Errorf("store: read question %s: %w", id, err)
	}
	return q, err
}

// Questions implements hitl.Store. It walks the by_job index when f names
// a job, the pending index when f asks for pending questions, and every
// question otherwise.
func (db *DB) Questions(ctx context.Context, f hitl.QuestionFilter) ([]*hitl.Question, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tx, err := db.bolt.Begin(false)
	if err != nil {
		return nil, fmt.Errorf("store: list questions: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	var qs []*hitl.Question
	switch {
	case f.JobID != "":
		qs, err = questionsByIndex(tx, bucketByJob, jobPrefix(f.JobID), f)
	case f.Status == hitl.StatusPending:
		qs, err = questionsByIndex(tx, bucketPending, nil, f)
	default:
		qs, err = scanQuestions(tx, f)
	}
	if err != nil {
		return nil, fmt.Errorf("store: list questions: %w", err)
	}
	return qs, nil
}

// QuestionByKey implements hitl.Store, in a read-only transaction.
func (db *DB) QuestionByKey(ctx context.Context, jobID, key string) (*hitl.Question, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tx, err := db.bolt.Begin(false)
	if err != nil {
		return nil, fmt.Errorf("store: question by key: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	id := tx.Bucket(bucketIdem).Get(idemKey(jobID, key))
	if id == nil {
		return nil, hitl.Errorf(hitl.ENOTFOUND, "no question of run %s holds key %q", jobID, key)
	}
	q, err := getQuestion(tx, string(id))
	if err != nil {
		return nil, fmt.Errorf("store: idempotency key %q of run %s: %w", key, jobID, err)
	}
	return q, nil
}

// SealedQuestions implements hitl.Store.
func (db *DB) SealedQuestions(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var ids []string
	err := db.bolt.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketSealed).ForEach(func(k, _ []byte) error {
			ids = append(ids, string(k))
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("store: sealed questions: %w", err)
	}
	return ids, nil
}

// DueQuestions implements hitl.Store. It reads the deadline index from its
// start and stops at the first deadline after now.
func (db *DB) DueQuestions(ctx context.Context, now time.Time, limit int) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tx, err := db.bolt.Begin(false)
	if err != nil {
		return nil, fmt.Errorf("store: due questions: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	end := timeKey(now)
	ids := []string{}
	c := tx.Bucket(bucketByDeadline).Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		if len(k) < 8 || binary.BigEndian.Uint64(k) > end {
			break
		}
		ids = append(ids, idAfter(k, 8))
		if limit > 0 && len(ids) == limit {
			break
		}
	}
	return ids, nil
}

// getQuestion decodes question id, or returns ENOTFOUND. The result owns
// its memory: decoding copies out of the transaction's pages.
func getQuestion(tx *bolt.Tx, id string) (*hitl.Question, error) {
	v := tx.Bucket(bucketQuestions).Get([]byte(id))
	if v == nil {
		return nil, hitl.Errorf(hitl.ENOTFOUND, "question %s not found", id)
	}
	return decodeQuestion(id, v)
}

func decodeQuestion(id string, v []byte) (*hitl.Question, error) {
	var q hitl.Question
	if err := json.Unmarshal(v, &q); err != nil {
		return nil, fmt.Errorf("decode question %s: %w", id, err)
	}
	return &q, nil
}

// putQuestion writes q (encoded as data) and moves its index entries from
// where old put them (nil for a new question).
func putQuestion(tx *bolt.Tx, q *hitl.Question, data []byte, old *indexKeys) error {
	if err := tx.Bucket(bucketQuestions).Put([]byte(q.ID), data); err != nil {
		return fmt.Errorf("put question %s: %w", q.ID, err)
	}
	if old == nil {
		old = &indexKeys{}
	}
	return moveIndexes(tx, q.ID, *old, indexOf(q))
}

// questionsByIndex walks an index whose keys are prefix ‖ time ‖ id, in
// key order, and returns the questions matching f.
func questionsByIndex(tx *bolt.Tx, bucket, prefix []byte, f hitl.QuestionFilter) ([]*hitl.Question, error) {
	var out []*hitl.Question
	c := tx.Bucket(bucket).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		id := idAfter(k, len(prefix)+8)
		q, err := getQuestion(tx, id)
		if err != nil {
			return nil, fmt.Errorf("%s index entry %x: %w", bucket, k, err)
		}
		if !f.Match(q) {
			continue
		}
		out = append(out, q)
		if f.Limit > 0 && len(out) == f.Limit {
			break
		}
	}
	return out, nil
}

// scanQuestions decodes every question and returns those matching f,
// oldest first.
func scanQuestions(tx *bolt.Tx, f hitl.QuestionFilter) ([]*hitl.Question, error) {
	var out []*hitl.Question
	err := tx.Bucket(bucketQuestions).ForEach(func(k, v []byte) error {
		q, err := decodeQuestion(string(k), v)
		if err != nil {
			return err
		}
		if f.Match(q) {
			out = append(out, q)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool {
		ti, tj := timeKey(out[i].CreatedAt), timeKey(out[j].CreatedAt)
		if ti != tj {
			return ti < tj
		}
		return out[i].ID < out[j].ID
	})
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out, nil
}
