package postgres

import (
	"context"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/jackc/pgx/v5"
)

// PendingByType implements hitl.QuestionStore: the pending questions by type,
// read from questions_by_status (its pending part), and the counter, in
// one snapshot.
func (db *DB) PendingByType(ctx context.Context) (map[hitl.QuestionType]int, uint64, error) {
	counts := map[hitl.QuestionType]int{}
	var seq int64
	err := db.read(ctx, "count pending questions", func(tx pgx.Tx) error {
		clear(counts)
		if err := tx.QueryRow(ctx, `SELECT seq FROM event_seq`).Scan(&seq); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT type, count(*) FROM questions WHERE status = $1 GROUP BY type`, string(hitl.StatusPending))
		if err != nil {
			return err
		}
		var typ string
		var n int
		_, err = pgx.ForEachRow(rows, []any{&typ, &n}, func() error {
			counts[hitl.QuestionType(typ)] = n
			return nil
		})
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return counts, uint64(seq), nil
}

// SettledQuestions implements hitl.QuestionStore: questions_by_settled from since
// (or after the cursor: the settle time and id of the last question of
// the previous page).
func (db *DB) SettledQuestions(ctx context.Context, since time.Time, limit int, cursor string) (hitl.QuestionPage, error) {
	size := hitl.QuestionFilter{Limit: limit}.PageSize()
	at, last := ns(since), ""
	if cursor != "" {
		var err error
		if at, last, err = decodeCursor(cursor); err != nil {
			return hitl.QuestionPage{}, err
		}
		if at < ns(since) {
			return hitl.QuestionPage{}, fault.Errorf(fault.EINVALID, "cursor %q is before the start of this list: use the nextCursor of the previous page, with the same since", cursor)
		}
	}
	rows, err := db.pool.Query(ctx, `SELECT responded_ns, data FROM questions WHERE responded_ns IS NOT NULL AND (responded_ns, id) > ($1, $2)
		AND responded_ns >= $3 ORDER BY responded_ns, id LIMIT $4`, at, last, ns(since), size+1)
	if err != nil {
		return hitl.QuestionPage{}, classify("list settled questions", err)
	}
	page := hitl.QuestionPage{Questions: make([]*hitl.Question, 0, min(size, 64))}
	var rat, lastAt int64
	var data []byte
	var lastID string
	_, err = pgx.ForEachRow(rows, []any{&rat, &data}, func() error {
		if len(page.Questions) == size {
			page.NextCursor = encodeCursor(lastAt, lastID)
			return nil
		}
		q, err := decodeQuestion(data)
		if err != nil {
			return err
		}
		page.Questions = append(page.Questions, q)
		lastAt, lastID = rat, q.ID
		return nil
	})
	if err != nil {
		return hitl.QuestionPage{}, classify("list settled questions", err)
	}
	return page, nil
}
