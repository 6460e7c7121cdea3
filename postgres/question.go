package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/jackc/pgx/v5"
)

// qrow is the columns a question is indexed by, as its state implies
// (the bbolt store's indexOf, as columns).
type qrow struct {
	timeout, responded *int64
	remind             *int64 // when the next reminder is due (pending only)
	respondedBy        *string
	idem               []byte // KeyOf(asker, key), which holds a NUL byte
	pending            bool
	unassigned         bool
	waits              bool
	sealed             bool
	assignees          []string // pending only: Question.Listed
}

func rowOf(q *hitl.Question) qrow {
	r := qrow{pending: q.Pending()}
	if r.pending {
		if q.TimeoutAt != nil {
			t := ns(*q.TimeoutAt)
			r.timeout = &t
		}
		if p := q.Reminders; p != nil && p.Next != nil {
			t := ns(*p.Next)
			r.remind = &t
		}
		r.assignees = q.Listed() // assignees and escalated people
		r.unassigned = q.Unassigned()
		r.waits = hitl.WaitsOn(q)
	} else if q.RespondedAt != nil {
		t := ns(*q.RespondedAt)
		r.responded = &t
		if q.Status == hitl.StatusAnswered && q.RespondedBy != "" {
			r.respondedBy = &q.RespondedBy
		}
	}
	if q.IdempotencyKey != "" && q.ReceivedAt == nil {
		r.idem = []byte(hitl.KeyOf(q.Asker, q.IdempotencyKey))
	}
	r.sealed = q.Response != nil && q.Response.Sealed != nil
	return r
}

func checkQuestion(q *hitl.Question) error {
	if q.ID == "" {
		return fault.Errorf(fault.EINVALID, "question has no id")
	}
	if err := nulFree("question field", q.ID, q.RunID, q.Asker, q.AskerUser, q.RespondedBy, string(q.Status), string(q.Type)); err != nil {
		return err
	}
	return nulFree("assignee", q.Listed()...)
}

// change is what one transaction appends at its end: count deltas and
// events, in order. Events take their Seq when the transaction takes the
// counter, last.
type change struct {
	counts  map[hitl.Status]int64
	events  []*hitl.Event
	rollups rollupEdits // rollup.go
}

func (c *change) reset() {
	c.counts = map[hitl.Status]int64{}
	c.events = c.events[:0]
	c.rollups = rollupEdits{}
}

func (c *change) count(old, cur *hitl.Question) {
	c.rollups.question(old, cur)
	if old != nil && cur != nil && old.Status == cur.Status {
		return
	}
	if old != nil {
		c.counts[old.Status]--
	}
	if cur != nil {
		c.counts[cur.Status]++
	}
}

// flushSQL writes count deltas and appends events in one statement (one
// round trip). The events take the next sequence numbers from the
// counter's row, whose lock the transaction holds until it commits: see
// appendEvents. An event's Seq lives in its row (the JSON holds 0).
const flushSQL = `WITH s AS (UPDATE event_seq SET seq = seq + $3 WHERE $3 > 0 RETURNING seq),
	cnt AS (INSERT INTO counts (status, n) SELECT * FROM unnest($1::text[], $2::bigint[])
		ON CONFLICT (status) DO UPDATE SET n = counts.n + EXCLUDED.n RETURNING 1),
	ins AS (INSERT INTO events (seq, job_id, at_ns, data)
		SELECT s.seq - $3 + u.o, u.j, u.a, u.d FROM s, unnest($4::text[], $5::bigint[], $6::bytea[]) WITH ORDINALITY AS u(j, a, d, o) RETURNING 1)
	SELECT (SELECT seq FROM s), (SELECT count(*) FROM cnt), (SELECT count(*) FROM ins)`

// flush writes the count deltas (in status order) and the events.
func (c *change) flush(ctx context.Context, tx pgx.Tx) error {
	sts := make([]string, 0, len(c.counts))
	for st, d := range c.counts {
		if d != 0 {
			sts = append(sts, string(st))
		}
	}
	if err := c.rollups.flush(ctx, tx, c.events); err != nil { // before the counter's lock
		return err
	}
	if len(sts) == 0 && len(c.events) == 0 {
		return nil
	}
	slices.Sort(sts)
	deltas := make([]int64, len(sts))
	for i, st := range sts {
		deltas[i] = c.counts[hitl.Status(st)]
	}
	runs := make([]string, len(c.events))
	ats := make([]int64, len(c.events))
	datas := make([][]byte, len(c.events))
	for i, ev := range c.events {
		if err := nulFree("event run id", ev.RunID); err != nil {
			return err
		}
		ev.Seq = 0
		data, err := json.Marshal(ev)
		if err != nil {
			return fmt.Errorf("encode event: %w", err)
		}
		runs[i], ats[i], datas[i] = ev.RunID, ns(ev.At), data
	}
	var last *int64
	var counted, inserted int64
	if err := tx.QueryRow(ctx, flushSQL, sts, deltas, len(c.events), runs, ats, datas).Scan(&last, &counted, &inserted); err != nil {
		return fmt.Errorf("append events: %w", err)
	}
	if int(inserted) != len(c.events) || last == nil && len(c.events) > 0 {
		return fmt.Errorf("append events: %d of %d written", inserted, len(c.events))
	}
	for i, ev := range c.events {
		ev.Seq = uint64(*last - int64(len(c.events)) + int64(i) + 1)
	}
	if err := auditEvents(ctx, tx, c.events); err != nil {
		return err
	}
	return insertWebhooks(ctx, tx, c.events)
}

// CreateQuestion implements hitl.QuestionStore.
func (db *DB) CreateQuestion(ctx context.Context, q *hitl.Question, ev *hitl.Event, admit func(*hitl.Run) error) (*hitl.Question, bool, error) {
	if err := checkQuestion(q); err != nil {
		return nil, false, err
	}
	data, err := json.Marshal(q)
	if err != nil {
		return nil, false, fmt.Errorf("postgres: create question %s: encode: %w", q.ID, err)
	}
	var (
		stored  *hitl.Question
		created bool
		c       change
	)
	err = db.write(ctx, "create question "+q.ID, func(tx pgx.Tx) error {
		stored, created = nil, false
		c.reset()
		if ev != nil {
			ev.Seq = 0
		}
		r := rowOf(q)
		if r.idem != nil {
			existing, err := questionByKey(ctx, tx, q.RunID, string(r.idem))
			if err == nil {
				stored = existing
				return nil
			} else if fault.Code(err) != fault.ENOTFOUND {
				return err
			}
		}
		if err := lockRuns(ctx, tx, q.RunID); err != nil {
			return err
		}
		if admit != nil {
			run, err := getRun(ctx, tx, q.RunID)
			if err != nil {
				return err
			}
			if err := admit(run); err != nil {
				return err
			}
		}
		tag, err := tx.Exec(ctx, `INSERT INTO questions (id, job_id, status, type, asker, asker_user, created_ns, timeout_ns, responded_ns,
			responded_by, idem_key, pending, unassigned, waits, sealed, data, remind_ns) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
			ON CONFLICT DO NOTHING`,
			q.ID, q.RunID, string(q.Status), string(q.Type), q.Asker, q.AskerUser, ns(q.CreatedAt), r.timeout, r.responded,
			r.respondedBy, r.idem, r.pending, r.unassigned, r.waits, r.sealed, data, r.remind)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			// A question of this id, or one holding this key, committed
			// first (the insert waited for it): now visible.
			if _, err := getQuestion(ctx, tx, q.ID, false); err == nil {
				return fault.Errorf(fault.ECONFLICT, "question %s already exists", q.ID)
			}
			if r.idem != nil {
				if existing, err := questionByKey(ctx, tx, q.RunID, string(r.idem)); err == nil {
					stored = existing
					return nil
				}
			}
			return fmt.Errorf("question %s conflicts with a question that is gone", q.ID)
		}
		if err := putAssignees(ctx, tx, nil, q, r); err != nil {
			return err
		}
		c.count(nil, q)
		at := q.CreatedAt
		if ev != nil {
			at = ev.At
		}
		run, err := trackRun(ctx, tx, nil, q, at)
		if err != nil {
			return err
		}
		if ev != nil {
			ev.Status = run.Status()
			c.events = append(c.events, ev)
		}
		if err := c.flush(ctx, tx); err != nil {
			return err
		}
		stored, created = q.Clone(), true
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return stored, created, nil
}

// putAssignees moves q's entries in assignees from what old had (nil: a
// new question) to what r says, each with q's deadline (dueNS).
func putAssignees(ctx context.Context, tx pgx.Tx, old *hitl.Question, q *hitl.Question, r qrow) error {
	var had []string
	if old != nil {
		if o := rowOf(old); o.pending && old.CreatedAt.Equal(q.CreatedAt) {
			had = o.assignees
			if dueNS(o.timeout) != dueNS(r.timeout) && len(r.assignees) > 0 {
				if _, err := tx.Exec(ctx, `UPDATE assignees SET due_ns = $2 WHERE question_id = $1`, q.ID, dueNS(r.timeout)); err != nil {
					return err
				}
			}
		} else if o.pending {
			if _, err := tx.Exec(ctx, `DELETE FROM assignees WHERE question_id = $1`, q.ID); err != nil {
				return err
			}
		}
	}
	for _, a := range had {
		if !slices.Contains(r.assignees, a) {
			if _, err := tx.Exec(ctx, `DELETE FROM assignees WHERE assignee = $1 AND created_ns = $2 AND question_id = $3`, a, ns(q.CreatedAt), q.ID); err != nil {
				return err
			}
		}
	}
	for _, a := range r.assignees {
		if !slices.Contains(had, a) {
			if _, err := tx.Exec(ctx, `INSERT INTO assignees (assignee, created_ns, question_id, due_ns) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
				a, ns(q.CreatedAt), q.ID, dueNS(r.timeout)); err != nil {
				return err
			}
		}
	}
	return nil
}

// neverDue is the deadline of a question that never times out in the
// lists by deadline: after every other (schema version 5).
const neverDue = math.MaxInt64

// dueNS is a pending question's place in the lists by deadline.
func dueNS(timeout *int64) int64 {
	if timeout == nil {
		return neverDue
	}
	return *timeout
}

// updateRow writes q (updated from old) and its columns.
func updateRow(ctx context.Context, tx pgx.Tx, old, q *hitl.Question) error {
	if err := checkQuestion(q); err != nil {
		return err
	}
	data, err := json.Marshal(q)
	if err != nil {
		return fmt.Errorf("encode question %s: %w", q.ID, err)
	}
	r := rowOf(q)
	_, err = tx.Exec(ctx, `UPDATE questions SET job_id = $2, status = $3, type = $4, asker = $5, asker_user = $6, created_ns = $7, timeout_ns = $8,
		responded_ns = $9, responded_by = $10, idem_key = $11, pending = $12, unassigned = $13, waits = $14, sealed = $15, data = $16, remind_ns = $17 WHERE id = $1`,
		q.ID, q.RunID, string(q.Status), string(q.Type), q.Asker, q.AskerUser, ns(q.CreatedAt), r.timeout, r.responded,
		r.respondedBy, r.idem, r.pending, r.unassigned, r.waits, r.sealed, data, r.remind)
	if err != nil {
		if isUnique(err) {
			return fault.Errorf(fault.ECONFLICT, "idempotency key of question %s is already used by another question", q.ID)
		}
		return err
	}
	return putAssignees(ctx, tx, old, q, r)
}

// update applies fn to question q (locked, as read) in tx and writes the
// result, its run and its event into c.
func update(ctx context.Context, tx pgx.Tx, c *change, q *hitl.Question, fn func(*hitl.Question) (*hitl.Event, error)) (*hitl.Question, error) {
	id := q.ID
	old := q.Clone()
	ev, err := fn(q)
	if err != nil {
		return nil, domain{err}
	}
	if q.ID != id || q.RunID != old.RunID {
		return nil, domain{fmt.Errorf("postgres: update question %s: fn changed its id or run", id)}
	}
	if err := updateRow(ctx, tx, old, q); err != nil {
		return nil, err
	}
	c.count(old, q)
	at := q.CreatedAt
	if ev != nil {
		at = ev.At
	}
	run, err := trackRun(ctx, tx, old, q, at)
	if err != nil {
		return nil, err
	}
	if ev != nil {
		ev.Status = run.Status()
		c.events = append(c.events, ev)
	}
	return q, nil
}

// domain carries fn's error out of a transaction that must roll back.
type domain struct{ err error }

func (d domain) Error() string { return d.err.Error() }

// UpdateQuestion implements hitl.QuestionStore.
func (db *DB) UpdateQuestion(ctx context.Context, id string, fn func(q *hitl.Question) (*hitl.Event, error)) (*hitl.Question, error) {
	var (
		updated *hitl.Question
		c       change
	)
	err := db.write(ctx, "update question "+id, func(tx pgx.Tx) error {
		updated = nil
		c.reset()
		q, err := getQuestion(ctx, tx, id, true)
		if err != nil {
			return err
		}
		if err := lockRuns(ctx, tx, q.RunID); err != nil {
			return err
		}
		u, err := update(ctx, tx, &c, q, fn)
		if err != nil {
			return err
		}
		if err := c.flush(ctx, tx); err != nil {
			return err
		}
		updated = u
		return nil
	})
	var d domain
	if errors.As(err, &d) {
		return nil, d.err
	}
	if err != nil {
		return nil, err
	}
	return updated, nil
}

// UpdateQuestions implements hitl.QuestionStore: one transaction. It locks the
// questions in id order, then their runs in id order, then updates them in
// the order given.
func (db *DB) UpdateQuestions(ctx context.Context, ids []string, fn func(q *hitl.Question) (*hitl.Event, error)) ([]*hitl.Question, []error, error) {
	updated := make([]*hitl.Question, len(ids))
	errs := make([]error, len(ids))
	if len(ids) == 0 {
		return updated, errs, nil
	}
	var c change
	err := db.write(ctx, "update questions", func(tx pgx.Tx) error {
		clear(updated)
		clear(errs)
		c.reset()
		rows, err := tx.Query(ctx, `SELECT data FROM questions WHERE id = ANY($1) ORDER BY id FOR UPDATE`, ids)
		if err != nil {
			return err
		}
		locked := map[string]*hitl.Question{}
		var runs []string
		for rows.Next() {
			var data []byte
			if err := rows.Scan(&data); err != nil {
				return err
			}
			q, err := decodeQuestion(data)
			if err != nil {
				return err
			}
			locked[q.ID] = q
			runs = append(runs, q.RunID)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if err := lockRuns(ctx, tx, runs...); err != nil {
			return err
		}
		for i, id := range ids {
			q, ok := locked[id]
			if !ok {
				errs[i] = fault.Errorf(fault.ENOTFOUND, "question %s not found", id)
				continue
			}
			if _, err := tx.Exec(ctx, `SAVEPOINT q`); err != nil {
				return err
			}
			u, err := update(ctx, tx, &c, q.Clone(), fn)
			if err != nil {
				var d domain
				if errors.As(err, &d) {
					err = d.err
				} else if fault.Code(err) != fault.ECONFLICT {
					return err
				}
				errs[i] = err
				if _, err := tx.Exec(ctx, `ROLLBACK TO SAVEPOINT q`); err != nil {
					return err
				}
				continue
			}
			if _, err := tx.Exec(ctx, `RELEASE SAVEPOINT q`); err != nil {
				return err
			}
			locked[id] = u.Clone()
			updated[i] = u
		}
		return c.flush(ctx, tx)
	})
	if err != nil {
		return nil, nil, err
	}
	return updated, errs, nil
}

// Question implements hitl.QuestionStore.
func (db *DB) Question(ctx context.Context, id string) (*hitl.Question, error) {
	q, err := getQuestion(ctx, db.pool, id, false)
	if err != nil {
		return nil, classify("read question "+id, err)
	}
	return q, nil
}

// querier is a pool, a connection or a transaction.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// getQuestion reads question id (locking its row for update when lock is
// set), or returns ENOTFOUND.
func getQuestion(ctx context.Context, q querier, id string, lock bool) (*hitl.Question, error) {
	sql := `SELECT data FROM questions WHERE id = $1`
	if lock {
		sql += ` FOR UPDATE`
	}
	var data []byte
	if err := q.QueryRow(ctx, sql, id).Scan(&data); errors.Is(err, pgx.ErrNoRows) {
		return nil, fault.Errorf(fault.ENOTFOUND, "question %s not found", id)
	} else if err != nil {
		return nil, err
	}
	return decodeQuestion(data)
}

func decodeQuestion(data []byte) (*hitl.Question, error) {
	var q hitl.Question
	if err := json.Unmarshal(data, &q); err != nil {
		return nil, fmt.Errorf("decode question: %w", err)
	}
	return &q, nil
}

func questionByKey(ctx context.Context, q querier, runID, key string) (*hitl.Question, error) {
	var data []byte
	err := q.QueryRow(ctx, `SELECT data FROM questions WHERE job_id = $1 AND idem_key = $2`, runID, []byte(key)).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fault.Errorf(fault.ENOTFOUND, "no question of run %s holds key %q", runID, key)
	} else if err != nil {
		return nil, err
	}
	return decodeQuestion(data)
}

// QuestionByKey implements hitl.QuestionStore.
func (db *DB) QuestionByKey(ctx context.Context, runID, key string) (*hitl.Question, error) {
	if nulFree("run id", runID) != nil {
		return nil, fault.Errorf(fault.ENOTFOUND, "no question of run %s holds key %q", runID, key)
	}
	q, err := questionByKey(ctx, db.pool, runID, key)
	if err != nil {
		return nil, classify("question by key", err)
	}
	return q, nil
}

// SealedQuestions implements hitl.QuestionStore: questions_sealed.
func (db *DB) SealedQuestions(ctx context.Context) ([]string, error) {
	ids, err := texts(ctx, db.pool, `SELECT id FROM questions WHERE sealed ORDER BY id`)
	if err != nil {
		return nil, classify("sealed questions", err)
	}
	return ids, nil
}

// dueSQL reads the due questions: questions_by_deadline from its start.
const dueSQL = `SELECT id FROM questions WHERE timeout_ns <= $1 ORDER BY timeout_ns, id LIMIT $2`

// DueQuestions implements hitl.QuestionStore: questions_by_deadline from its
// start.
func (db *DB) DueQuestions(ctx context.Context, now time.Time, limit int) ([]string, error) {
	if limit <= 0 {
		limit = math.MaxInt32
	}
	ids, err := texts(ctx, db.pool, dueSQL, ns(now), limit)
	if err != nil {
		return nil, classify("due questions", err)
	}
	return ids, nil
}

// texts reads one text column.
func texts(ctx context.Context, q querier, sql string, args ...any) ([]string, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if out == nil {
		out = []string{}
	}
	return out, err
}

// CountQuestions implements hitl.QuestionStore: the counts row of status.
func (db *DB) CountQuestions(ctx context.Context, status hitl.Status) (int, error) {
	var n int64
	err := db.pool.QueryRow(ctx, `SELECT n FROM counts WHERE status = $1`, string(status)).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	} else if err != nil {
		return 0, classify("count questions", err)
	}
	return int(n), nil
}
