package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/jackc/pgx/v5"
)

func decodeLearned(data []byte) (*hitl.LearnedRule, error) {
	return decodeRecord[hitl.LearnedRule](data, "learned rule")
}

// PutLearnedRule implements hitl.PolicyStore: one transaction deletes the rule
// the key holds and any earlier version of r, and inserts r.
func (db *DB) PutLearnedRule(ctx context.Context, r *hitl.LearnedRule, evs ...*hitl.Event) error {
	if r == nil || r.ID == "" {
		return fault.Errorf(fault.EINVALID, "a learned rule needs an id")
	}
	if err := nulFree("learned rule id", r.ID); err != nil {
		return err
	}
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("postgres: encode learned rule %s: %w", r.ID, err)
	}
	return db.write(ctx, "put learned rule "+r.ID, func(tx pgx.Tx) error {
		// Two puts of one key take turns: the second replaces the first.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, int32(lockClassLearned),
			fmt.Sprintf("%x:%x:%x", r.Agent, r.OpType, r.Resource)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM learned WHERE (agent = $1 AND op_type = $2 AND resource = $3) OR id = $4`,
			[]byte(r.Agent), []byte(r.OpType), []byte(r.Resource), r.ID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO learned (id, agent, op_type, resource, expires_ns, data) VALUES ($1, $2, $3, $4, $5, $6)`,
			r.ID, []byte(r.Agent), []byte(r.OpType), []byte(r.Resource), ns(r.ExpiresAt), data); err != nil {
			return err
		}
		return appendEventsLast(ctx, tx, evs)
	})
}

// LearnedRule implements hitl.PolicyStore: the unique key.
func (db *DB) LearnedRule(ctx context.Context, key hitl.LearnedRuleKey) (*hitl.LearnedRule, error) {
	var data []byte
	err := db.pool.QueryRow(ctx, `SELECT data FROM learned WHERE agent = $1 AND op_type = $2 AND resource = $3`,
		[]byte(key.Agent), []byte(key.OpType), []byte(key.Resource)).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	} else if err != nil {
		return nil, classify("read learned rule", err)
	}
	return decodeLearned(data)
}

// DeleteLearnedRule implements hitl.PolicyStore.
func (db *DB) DeleteLearnedRule(ctx context.Context, id string, evOf ...func(*hitl.LearnedRule) *hitl.Event) (*hitl.LearnedRule, error) {
	return deleteRecord(ctx, db, "learned", id, "learned rule "+id, fault.Errorf(fault.ENOTFOUND, "no learned rule %s", id),
		func(tx pgx.Tx, gone *hitl.LearnedRule) error {
			var evs []*hitl.Event
			for _, f := range evOf {
				evs = append(evs, f(gone))
			}
			return appendEventsLast(ctx, tx, evs)
		})
}

// LearnedRules implements hitl.PolicyStore: a page in id order, from the primary
// key or, for one agent, learned_by_agent.
func (db *DB) LearnedRules(ctx context.Context, f hitl.LearnedRuleFilter) (hitl.LearnedRulePage, error) {
	limit := f.PageSize()
	page := hitl.LearnedRulePage{Rules: []*hitl.LearnedRule{}}
	if nulFree("cursor", f.Cursor) != nil {
		return page, nil
	}
	sql, args := `SELECT data FROM learned WHERE id > $1 ORDER BY id LIMIT $2`, []any{f.Cursor, limit + 1}
	if f.Agent != "" {
		sql, args = `SELECT data FROM learned WHERE agent = $1 AND id > $2 ORDER BY agent, id LIMIT $3`, []any{[]byte(f.Agent), f.Cursor, limit + 1}
	}
	rows, err := db.pool.Query(ctx, sql, args...)
	if err != nil {
		return page, classify("list learned rules", err)
	}
	datas, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	if err != nil {
		return page, classify("list learned rules", err)
	}
	for i, data := range datas {
		if i == limit {
			page.NextCursor = page.Rules[limit-1].ID
			break
		}
		r, err := decodeLearned(data)
		if err != nil {
			return page, err
		}
		page.Rules = append(page.Rules, r)
	}
	return page, nil
}

// PruneLearnedRules implements hitl.PolicyStore: the oldest expired first; with nothing
// expired it only reads.
func (db *DB) PruneLearnedRules(ctx context.Context, now time.Time, limit int) (int, error) {
	return db.pruneExpired(ctx, "learned", now, limit)
}
