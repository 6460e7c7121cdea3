package store

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	bolt "go.etcd.io/bbolt"
)

// CreateQuestion implements hitl.QuestionStore. The question, its index entries,
// its idempotency key and ev are written in one fsync'd transaction, shared
// with concurrent writers; admit's refusal is reported beside it.
func (db *DB) CreateQuestion(ctx context.Context, q *hitl.Question, ev *hitl.Event, admit func(*hitl.Run) error) (*hitl.Question, bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	if q.ID == "" {
		return nil, false, fault.Errorf(fault.EINVALID, "question has no id")
	}
	if strings.IndexByte(q.RunID, 0) >= 0 {
		return nil, false, fault.Errorf(fault.EINVALID, "job id %q contains a NUL byte", q.RunID)
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
	err = db.write(func(tx *bolt.Tx) error {
		stored, created, domErr = nil, false, nil
		if ev != nil {
			ev.Seq = 0
		}
		if q.IdempotencyKey != "" {
			if id := tx.Bucket(bucketIdem).Get(idemKey(q.RunID, hitl.KeyOf(q.Asker, q.IdempotencyKey))); id != nil {
				existing, err := getQuestion(tx, string(id))
				if err != nil {
					return fmt.Errorf("idempotency key %q of job %s: %w", q.IdempotencyKey, q.RunID, err)
				}
				stored = existing
				return nil
			}
		}
		if tx.Bucket(bucketQuestions).Get([]byte(q.ID)) != nil {
			domErr = fault.Errorf(fault.ECONFLICT, "question %s already exists", q.ID)
			return nil
		}
		if admit != nil {
			run, err := getRun(tx, q.RunID)
			if err != nil {
				return err
			}
			if domErr = admit(run); domErr != nil {
				return nil
			}
		}
		if err := putQuestion(tx, nil, q, data, ev); err != nil {
			return err
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

// UpdateQuestion implements hitl.QuestionStore. fn runs inside the write
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
	err := db.write(func(tx *bolt.Tx) error {
		updated, domErr = nil, nil
		q, err := getQuestion(tx, id)
		if fault.Code(err) == fault.ENOTFOUND {
			domErr = err
			return nil
		} else if err != nil {
			return err
		}
		old := q.Clone()
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
		if err := putQuestion(tx, old, q, data, ev); err != nil {
			return err
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

// UpdateQuestions implements hitl.QuestionStore: one write transaction, one
// commit, for the whole batch.
func (db *DB) UpdateQuestions(ctx context.Context, ids []string, fn func(q *hitl.Question) (*hitl.Event, error)) ([]*hitl.Question, []error, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	updated := make([]*hitl.Question, len(ids))
	errs := make([]error, len(ids))
	if len(ids) == 0 {
		return updated, errs, nil // nothing to write: no commit
	}
	err := db.write(func(tx *bolt.Tx) error {
		clear(updated)
		clear(errs)
		for i, id := range ids {
			q, err := getQuestion(tx, id)
			if fault.Code(err) == fault.ENOTFOUND {
				errs[i] = err
				continue
			} else if err != nil {
				return err
			}
			old := q.Clone()
			ev, err := fn(q)
			if err != nil {
				errs[i] = err
				continue
			}
			data, err := json.Marshal(q)
			if err != nil {
				return fmt.Errorf("encode: %w", err)
			}
			if err := putQuestion(tx, old, q, data, ev); err != nil {
				return err
			}
			updated[i] = q
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("store: update questions: %w", err)
	}
	return updated, errs, nil
}

// Question implements hitl.QuestionStore.
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
	if err != nil && fault.Code(err) == fault.EINTERNAL {
		return nil, fmt.Errorf("store: read question %s: %w", id, err)
	}
	return q, err
}

// Questions implements hitl.QuestionStore. It reads the page from the most
// selective index f names and decodes only the questions it returns (and
// those the other fields of f skip).
func (db *DB) Questions(ctx context.Context, f hitl.QuestionFilter) (hitl.QuestionPage, error) {
	if err := ctx.Err(); err != nil {
		return hitl.QuestionPage{}, err
	}
	if len(f.Queue) > 0 {
		return db.queue(ctx, f)
	}
	bucket, prefix := indexFor(f)
	var after []byte
	if f.Cursor != "" {
		var err error
		if after, err = base64.RawURLEncoding.DecodeString(f.Cursor); err != nil || !bytes.HasPrefix(after, prefix) {
			return hitl.QuestionPage{}, fault.Errorf(fault.EINVALID, "cursor %q does not belong to this list: use the nextCursor of the previous page, with the same filters", f.Cursor)
		}
	}
	tx, err := db.bolt.Begin(false)
	if err != nil {
		return hitl.QuestionPage{}, fmt.Errorf("store: list questions: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	page, err := readPage(tx, bucket, prefix, after, f)
	if err != nil {
		return hitl.QuestionPage{}, fmt.Errorf("store: list questions: %w", err)
	}
	return page, nil
}

// indexFor chooses the index a list reads: the most selective one f names
// (by deadline: an assignee's, the unassigned list, a run's, a type's or
// the pending list). Every key of the index starts with the prefix it returns, then a time,
// then the question id.
func indexFor(f hitl.QuestionFilter) (bucket, prefix []byte) {
	withPrefix := func(s string) []byte { return append([]byte(s), 0) }
	switch {
	case f.ByDeadline && f.Assignee != "":
		return bucketByDueList, dueList(dueAssignee, f.Assignee)
	case f.ByDeadline && f.Unassigned:
		return bucketByDueList, dueList(dueUnassigned, "")
	case f.ByDeadline && f.RunID != "":
		return bucketByDueList, dueList(dueRun, f.RunID)
	case f.ByDeadline && f.Type != "":
		return bucketByDueList, dueList(dueType, string(f.Type))
	case f.ByDeadline:
		return bucketByDueList, dueList(dueAll, "")
	case f.RunID != "":
		return bucketByRun, runPrefix(f.RunID)
	case f.Assignee != "":
		return bucketByAssignee, withPrefix(f.Assignee)
	case f.Unassigned:
		return bucketUnassigned, nil
	case f.RespondedBy != "":
		return bucketByResponder, withPrefix(f.RespondedBy)
	case f.Asker != "" && f.Status != "":
		return bucketByFilter, withPrefix(askerStatusList(f.Asker, f.Status))
	case f.Asker != "":
		return bucketByAsker, withPrefix(f.Asker)
	case f.Type != "" && f.Status != "":
		return bucketByFilter, withPrefix(typeStatusList(f.Type, f.Status))
	case f.Type != "":
		return bucketByFilter, withPrefix(typeList(f.Type))
	case f.Status != "":
		return bucketByStatus, withPrefix(string(f.Status))
	}
	return bucketByCreated, nil
}

// readPage walks bucket from after (exclusive; the start when nil), in
// key order or backwards, and returns up to a page of questions matching
// f, with the cursor of the last entry read when the walk did not reach
// the end. A filter the index does not fit (a run's questions of one type,
// say) skips entries: once the walk has read a budget of entries and holds
// at least one question it ends the page short, with a cursor, but it never
// ends a page empty while the index holds a match further on.
func readPage(tx *bolt.Tx, bucket, prefix, after []byte, f hitl.QuestionFilter) (hitl.QuestionPage, error) {
	size := f.PageSize()
	page := hitl.QuestionPage{Questions: make([]*hitl.Question, 0, min(size, 64))}
	c := tx.Bucket(bucket).Cursor()
	var k []byte
	step := c.Next
	switch {
	case f.Reverse:
		step = c.Prev
		if after != nil {
			c.Seek(after)
			k, _ = c.Prev()
		} else {
			k = seekLast(c, prefix)
		}
	case after != nil:
		if k, _ = c.Seek(after); bytes.Equal(k, after) {
			k, _ = c.Next()
		}
	default:
		k, _ = c.Seek(prefix)
	}
	budget := max(4*size, 1000) // entries examined: bounds a page whose filter skips many
	for ; k != nil && bytes.HasPrefix(k, prefix); k, _ = step() {
		if len(page.Questions) == size || (budget <= 0 && len(page.Questions) > 0) {
			page.NextCursor = base64.RawURLEncoding.EncodeToString(after)
			break
		}
		q, err := getQuestion(tx, idAfter(k, len(prefix)+8))
		if err != nil {
			return page, fmt.Errorf("%s index entry %x: %w", bucket, k, err)
		}
		after = append(after[:0], k...)
		budget--
		if f.Match(q) {
			page.Questions = append(page.Questions, q)
		}
	}
	return page, nil
}

// seekLast positions c on the last key with prefix (the last key of the
// bucket for an empty prefix) and returns it.
func seekLast(c *bolt.Cursor, prefix []byte) []byte {
	if len(prefix) == 0 {
		k, _ := c.Last()
		return k
	}
	end := append(bytes.Clone(prefix[:len(prefix)-1]), prefix[len(prefix)-1]+1) // prefixes end in 0x00
	if k, _ := c.Seek(end); k == nil {
		k, _ = c.Last()
		return k
	}
	k, _ := c.Prev()
	return k
}

// QuestionByKey implements hitl.QuestionStore, in a read-only transaction.
func (db *DB) QuestionByKey(ctx context.Context, runID, key string) (*hitl.Question, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tx, err := db.bolt.Begin(false)
	if err != nil {
		return nil, fmt.Errorf("store: question by key: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	id := tx.Bucket(bucketIdem).Get(idemKey(runID, key))
	if id == nil {
		return nil, fault.Errorf(fault.ENOTFOUND, "no question of run %s holds key %q", runID, key)
	}
	q, err := getQuestion(tx, string(id))
	if err != nil {
		return nil, fmt.Errorf("store: idempotency key %q of run %s: %w", key, runID, err)
	}
	return q, nil
}

// SealedQuestions implements hitl.QuestionStore.
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

// DueQuestions implements hitl.QuestionStore. It reads the deadline index from its
// start and stops at the first deadline after now.
func (db *DB) DueQuestions(ctx context.Context, now time.Time, limit int) ([]string, error) {
	return db.dueIn(ctx, bucketByDeadline, now, limit)
}

// dueIn reads up to limit ids from a time-keyed index (when ‖ id) from
// its start, stopping at the first key after now: its cost grows with
// what is due.
func (db *DB) dueIn(ctx context.Context, bucket []byte, now time.Time, limit int) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tx, err := db.bolt.Begin(false)
	if err != nil {
		return nil, fmt.Errorf("store: due in %s: %w", bucket, err)
	}
	defer func() { _ = tx.Rollback() }()
	end := timeKey(now)
	ids := []string{}
	c := tx.Bucket(bucket).Cursor()
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
		return nil, fault.Errorf(fault.ENOTFOUND, "question %s not found", id)
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

// putQuestion writes q (encoded as data), moves its index entries from
// where old (nil for a new question) had them, keeps its run's record
// current, and appends ev (when not nil) with the run's status after it.
func putQuestion(tx *bolt.Tx, old, q *hitl.Question, data []byte, ev *hitl.Event) error {
	questions := tx.Bucket(bucketQuestions)
	questions.FillPercent = appendFill
	if err := questions.Put([]byte(q.ID), data); err != nil {
		return fmt.Errorf("put question %s: %w", q.ID, err)
	}
	var oldIx []indexEntry
	if old != nil {
		oldIx = indexOf(old)
	}
	if err := moveIndexes(tx, q.ID, oldIx, indexOf(q)); err != nil {
		return err
	}
	if err := count(tx, old, q); err != nil {
		return err
	}
	if err := rollupQuestion(tx, old, q); err != nil {
		return err
	}
	at := q.CreatedAt
	if ev != nil {
		at = ev.At
	}
	run, err := trackRun(tx, old, q, at)
	if err != nil {
		return err
	}
	if ev == nil {
		return nil
	}
	ev.Status = run.Status()
	return appendEvent(tx, ev)
}

// CountQuestions implements hitl.QuestionStore.
func (db *DB) CountQuestions(ctx context.Context, status hitl.Status) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	var n uint64
	err := db.bolt.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(bucketCounts).Get([]byte(status)); len(v) == 8 {
			n = binary.BigEndian.Uint64(v)
		}
		return nil
	})
	return int(n), err
}
