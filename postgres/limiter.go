package postgres

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/jackc/pgx/v5"
)

// Limiter is hitl.Limiter on the database: its token buckets are rows of
// rate_buckets, which every replica shares, so a principal's (and a
// run's) limit holds across replicas. The buckets are package
// ratelimit's: perMinute tokens a minute, a burst of ten seconds' worth.
//
// Each Allow is one transaction that does not wait for its commit to
// reach the disk (synchronous_commit off, and rate_buckets is unlogged):
// a bucket a crash loses is a full one, as after a restart of one
// process. When the database does not answer, Allow allows: the write
// the limit guards fails on its own then.
type Limiter struct {
	db               *DB
	name             string
	perToken, perRun int
	now              func() time.Time
}

var _ hitl.Limiter = (*Limiter)(nil)

// limiterIdle is how long an untouched bucket is kept: it has refilled
// by then, and a full bucket and a missing one behave the same.
const limiterIdle = 10 * time.Minute

// limiterTimeout bounds one Allow.
const limiterTimeout = 2 * time.Second

// Limiter returns a limiter named name (each limit has its own buckets)
// allowing perToken a minute per principal and perRun per run (0: no
// limit). now is the clock (nil: the wall clock).
func (db *DB) Limiter(name string, perToken, perRun int, now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	return &Limiter{db: db, name: name, perToken: perToken, perRun: perRun, now: now}
}

type limitBucket struct {
	key       string
	perMinute int
}

// Allow implements hitl.Limiter: both buckets must have a token; when one
// has not, neither is charged and the longer wait is returned.
func (l *Limiter) Allow(principal, run string) time.Duration {
	var buckets []limitBucket
	if l.perToken > 0 {
		buckets = append(buckets, limitBucket{l.name + "|p|" + principal, l.perToken})
	}
	if l.perRun > 0 {
		buckets = append(buckets, limitBucket{l.name + "|r|" + run, l.perRun})
	}
	if len(buckets) == 0 {
		return 0
	}
	for _, b := range buckets {
		if nulFree("rate limit key", b.key) != nil {
			return 0
		}
	}
	slices.SortFunc(buckets, func(a, b limitBucket) int { return compareStrings(a.key, b.key) }) // one lock order
	now := l.now()
	ctx, cancel := context.WithTimeout(context.Background(), limiterTimeout)
	defer cancel()
	var wait time.Duration
	err := l.db.write(ctx, "rate limit", func(tx pgx.Tx) error {
		wait = 0
		if _, err := tx.Exec(ctx, `SET LOCAL synchronous_commit = off`); err != nil {
			return err
		}
		left := make([]float64, len(buckets))
		for i, b := range buckets {
			rate, burst := float64(b.perMinute)/float64(time.Minute), float64(max(1, (b.perMinute+5)/6))
			var tokens float64
			var at int64
			err := tx.QueryRow(ctx, `INSERT INTO rate_buckets AS r (key, tokens, at_ns) VALUES ($1, $2, $3)
ON CONFLICT (key) DO UPDATE SET key = r.key RETURNING tokens, at_ns`, b.key, burst, ns(now)).Scan(&tokens, &at)
			if err != nil {
				return err
			}
			if elapsed := ns(now) - at; elapsed > 0 {
				tokens += float64(elapsed) * rate
			}
			left[i] = min(burst, tokens)
			if left[i] < 1 {
				wait = max(wait, time.Duration((1-left[i])/rate))
			}
		}
		if wait > 0 {
			return errLimited // nothing is charged
		}
		for i, b := range buckets {
			if _, err := tx.Exec(ctx, `UPDATE rate_buckets SET tokens = $2, at_ns = $3 WHERE key = $1`, b.key, left[i]-1, ns(now)); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, `DELETE FROM rate_buckets WHERE key IN (SELECT key FROM rate_buckets WHERE at_ns < $1 ORDER BY at_ns, key LIMIT $2 FOR UPDATE SKIP LOCKED)`,
			ns(now.Add(-limiterIdle)), 2*len(buckets))
		return err
	})
	if err != nil && !errors.Is(err, errLimited) {
		return 0
	}
	return wait
}

// errLimited rolls back an Allow that charged nothing.
var errLimited = errors.New("rate limited")

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
