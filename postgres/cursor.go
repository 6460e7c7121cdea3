package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/hitlbot/hitl/fault"
	"github.com/jackc/pgx/v5"
)

// The outboxes (Slack deliveries, mail) each keep a cursor in meta: the
// Seq of the last event turned into their items. Every replica reads the
// same events, so enqueuers take turns under the outbox's advisory lock
// and keep only the items of events after the cursor they find.

// readCursor returns the cursor meta holds under key (0 for none).
func readCursor(ctx context.Context, q querier, key, what string) (uint64, error) {
	var cur int64
	err := q.QueryRow(ctx, `SELECT (convert_from(value, 'UTF8'))::bigint FROM meta WHERE key = $1`, key).Scan(&cur)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	} else if err != nil {
		return 0, classify(what, err)
	}
	return uint64(cur), nil
}

// enqueueTurn takes the enqueuers' turn (lock, held to the end of tx),
// moves the cursor under key on to cursor (never back), and returns the
// cursor it found: an item of an event at or before it was enqueued
// already, by another replica.
func enqueueTurn(ctx context.Context, tx pgx.Tx, lock int64, key string, cursor uint64) (stored uint64, err error) {
	if cursor > math.MaxInt64 {
		return 0, fault.Errorf(fault.EINVALID, "%s %d is out of range", key, cursor)
	}
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, lock); err != nil {
		return 0, err
	}
	if stored, err = readCursor(ctx, tx, key, key); err != nil {
		return 0, err
	}
	_, err = tx.Exec(ctx, `INSERT INTO meta (key, value) VALUES ($1, convert_to($2::bigint::text, 'UTF8'))
		ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`, key, int64(max(stored, cursor)))
	return stored, err
}

// enqueue takes the enqueuers' turn (enqueueTurn) and, for each item
// whose event (0: none) is after the cursor it found, sets its Seq to the
// next of table's and inserts it with its JSON; the others keep Seq 0:
// another replica enqueued them. keys returns an item's event and where
// its Seq is.
func enqueue[T any](ctx context.Context, tx pgx.Tx, lock int64, key string, cursor uint64, table string, items []T,
	keys func(*T) (event uint64, seq *uint64), insert func(item *T, data []byte) error) error {
	stored, err := enqueueTurn(ctx, tx, lock, key, cursor)
	if err != nil {
		return err
	}
	for i := range items {
		event, seq := keys(&items[i])
		*seq = 0
		if event != 0 && event <= stored {
			continue // another replica enqueued it
		}
		if *seq, err = nextSeq(ctx, tx, table); err != nil {
			return err
		}
		data, err := json.Marshal(items[i])
		if err != nil {
			return fmt.Errorf("encode %s: %w", table, err)
		}
		if err := insert(&items[i], data); err != nil {
			return err
		}
	}
	return nil
}

// nextSeq returns the next value of table's seq column.
func nextSeq(ctx context.Context, tx pgx.Tx, table string) (uint64, error) {
	var seq int64
	err := tx.QueryRow(ctx, `SELECT nextval(pg_get_serial_sequence($1, 'seq'))`, table).Scan(&seq)
	return uint64(seq), err
}
