package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// The claim half of the outboxes' lease (mail, webhooks): a query that
// selects due rows (seq, data) FOR UPDATE SKIP LOCKED, each record
// stamped as claimed and moved to until in the same transaction, so that
// another replica skips it until the lease runs out.

// claimLimit is a claim's LIMIT: none for limit ≤ 0.
func claimLimit(limit int) *int64 {
	if limit <= 0 {
		return nil
	}
	l := int64(limit)
	return &l
}

// claim runs a claim query in one write transaction and leases the rows
// it selects until until (lease); table names the rows and the write.
func claim[T any](ctx context.Context, db *DB, table string, until time.Time, stamp func(r *T, seq int64), query string, args ...any) ([]T, error) {
	out := []T{}
	err := db.write(ctx, "claim "+table, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, query, args...)
		if err != nil {
			return err
		}
		got, err := lease(ctx, tx, table, until, rows, stamp)
		out = append(out[:0], got...)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// lease reads the rows of table a claim query returned, stamps each record
// (claim sets its Seq, NextAt and Claim count) and writes them back with
// next_ns = until. It closes rows.
func lease[T any](ctx context.Context, tx pgx.Tx, table string, until time.Time, rows pgx.Rows, claim func(r *T, seq int64)) ([]T, error) {
	defer rows.Close()
	var (
		out   []T
		seqs  []int64
		datas [][]byte
	)
	for rows.Next() {
		var seq int64
		var data []byte
		if err := rows.Scan(&seq, &data); err != nil {
			return nil, err
		}
		var r T
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("decode %s %d: %w", table, seq, err)
		}
		claim(&r, seq)
		data, err := json.Marshal(r)
		if err != nil {
			return nil, fmt.Errorf("encode %s %d: %w", table, seq, err)
		}
		out, seqs, datas = append(out, r), append(seqs, seq), append(datas, data)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(seqs) == 0 {
		return out, err
	}
	_, err := tx.Exec(ctx, `UPDATE `+table+` SET next_ns = $1, data = c.data
		FROM unnest($2::bigint[], $3::bytea[]) AS c(seq, data) WHERE `+table+`.seq = c.seq`, ns(until), seqs, datas)
	return out, err
}
