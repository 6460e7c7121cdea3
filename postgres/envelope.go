package postgres

import (
	"context"
	"slices"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/jackc/pgx/v5"
)

// SeeEnvelope implements hitl.EnvelopeStore: one transaction inserts the ids,
// replacing only records older than the window (ON CONFLICT … WHERE), and
// deletes the oldest expired records by envelopes_by_age. Of two
// replicas inserting one id at once, the second waits on the first's row
// and then finds it recent: it reports seen.
func (db *DB) SeeEnvelope(ctx context.Context, now time.Time, window time.Duration, ids ...string) (bool, error) {
	fresh := make([]string, 0, len(ids))
	for _, id := range ids {
		if id != "" {
			fresh = append(fresh, id)
		}
	}
	slices.Sort(fresh) // one lock order: two calls never deadlock
	fresh = slices.Compact(fresh)
	if len(fresh) == 0 {
		return false, nil
	}
	if err := nulFree("envelope id", fresh...); err != nil {
		return false, err
	}
	cutoff := ns(now.Add(-window))
	var seen bool
	err := db.write(ctx, "see envelope", func(tx pgx.Tx) error {
		seen = false
		tag, err := tx.Exec(ctx, `INSERT INTO envelopes (id, at_ns) SELECT unnest($1::text[]), $2
ON CONFLICT (id) DO UPDATE SET at_ns = EXCLUDED.at_ns WHERE envelopes.at_ns <= $3`, fresh, ns(now), cutoff)
		if err != nil {
			return err
		}
		seen = int(tag.RowsAffected()) < len(fresh)
		_, err = tx.Exec(ctx, `DELETE FROM envelopes WHERE id IN (SELECT id FROM envelopes WHERE at_ns <= $1 ORDER BY at_ns, id LIMIT $2 FOR UPDATE SKIP LOCKED)`,
			cutoff, len(fresh)*hitl.EnvelopePrune)
		return err
	})
	if err != nil {
		return false, err
	}
	return seen, nil
}
