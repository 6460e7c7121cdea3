package postgres

import (
	"context"
	"time"

	"github.com/hitlbot/hitl/fault"
	"github.com/jackc/pgx/v5"
)

// pruneLock is the advisory lock retention holds.
const pruneLock = 0x68697470 // "hitp"

// Prune implements hitl.RetentionStore: retention, in one transaction. It reads
// questions_by_settled, the event log, control_by_age and runs_ended from
// their starts, so its cost grows with what it deletes; with nothing old
// enough it only reads.
func (db *DB) Prune(ctx context.Context, before time.Time, limit int) (int, error) {
	if limit <= 0 {
		limit = 256
	}
	end := ns(before)
	var n int
	err := db.write(ctx, "prune", func(tx pgx.Tx) error {
		n = 0
		// Retention runs on one replica at a time: the others find the
		// lock taken and leave it to the one that holds it.
		var mine bool
		if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, int64(pruneLock)).Scan(&mine); err != nil || !mine {
			return err
		}
		var c change
		c.reset()
		ids, err := texts(ctx, tx, `SELECT id FROM questions WHERE responded_ns IS NOT NULL AND responded_ns < $1 ORDER BY responded_ns, id LIMIT $2`, end, limit)
		if err != nil {
			return err
		}
		for _, id := range ids {
			deleted, err := deleteQuestion(ctx, tx, &c, id)
			if err != nil {
				return err
			}
			if deleted {
				n++
			}
		}
		if err := c.flush(ctx, tx); err != nil {
			return err
		}
		m, err := pruneEvents(ctx, tx, end, limit)
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `DELETE FROM control WHERE (principal, request_id) IN (SELECT principal, request_id FROM control WHERE at_ns < $1 ORDER BY at_ns, principal, request_id LIMIT $2)`, end, limit)
		if err != nil {
			return err
		}
		r, err := pruneRuns(ctx, tx, end, limit)
		if err != nil {
			return err
		}
		u, err := pruneRollups(ctx, tx, end, limit)
		n = max(n, m, int(tag.RowsAffected()), r, u)
		return err
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// deleteQuestion deletes settled question id (locked first, and still
// settled: a concurrent prune may have taken it), its Slack records and
// its share of its run.
func deleteQuestion(ctx context.Context, tx pgx.Tx, c *change, id string) (bool, error) {
	q, err := getQuestion(ctx, tx, id, true)
	if fault.Code(err) == fault.ENOTFOUND {
		return false, nil
	} else if err != nil {
		return false, err
	}
	if q.Pending() {
		return false, nil
	}
	if err := lockRuns(ctx, tx, q.RunID); err != nil {
		return false, err
	}
	if _, err := tx.Exec(ctx, `DELETE FROM questions WHERE id = $1`, id); err != nil {
		return false, err
	}
	if _, err := tx.Exec(ctx, `DELETE FROM delivered WHERE question_id = $1`, id); err != nil {
		return false, err
	}
	c.count(q, nil)
	run, err := getRun(ctx, tx, q.RunID)
	if err != nil {
		return false, err
	}
	if run != nil {
		run.Forget(q)
		if !run.Held() {
			err = deleteRun(ctx, tx, run.ID)
		} else {
			err = putRun(ctx, tx, run)
		}
		if err != nil {
			return false, err
		}
	}
	return true, nil
}

// pruneEvents deletes up to limit events older than end from the start
// of the log, stopping at the first that is not, and returns how many.
func pruneEvents(ctx context.Context, tx pgx.Tx, end int64, limit int) (int, error) {
	rows, err := tx.Query(ctx, `SELECT seq, at_ns FROM events ORDER BY seq LIMIT $1`, limit)
	if err != nil {
		return 0, err
	}
	var last int64
	n := 0
	stop := false
	var seq, at int64
	_, err = pgx.ForEachRow(rows, []any{&seq, &at}, func() error {
		if stop = stop || at >= end; !stop {
			last = seq
			n++
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, nil
	}
	tag, err := tx.Exec(ctx, `DELETE FROM events WHERE seq <= $1`, last)
	return int(tag.RowsAffected()), err
}

// pruneRuns deletes up to limit runs that ended before end and hold no
// question, and returns how many.
func pruneRuns(ctx context.Context, tx pgx.Tx, end int64, limit int) (int, error) {
	ids, err := texts(ctx, tx, `SELECT id FROM runs WHERE ended_ns IS NOT NULL AND ended_ns < $1 ORDER BY ended_ns, id LIMIT $2`, end, limit)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range ids {
		if err := lockRuns(ctx, tx, id); err != nil {
			return n, err
		}
		run, err := getRun(ctx, tx, id)
		if err != nil {
			return n, err
		}
		if run == nil || run.Held() || !run.Control.Status.Ended() {
			continue
		}
		if err := deleteRun(ctx, tx, id); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
