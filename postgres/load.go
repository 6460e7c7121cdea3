package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/jackc/pgx/v5"
)

// tables are the tables that hold an installation's records, in the
// order Load empties them.
var tables = []string{"questions", "assignees", "counts", "events", "runs", "control", "learned", "deliveries", "delivered", "mail", "meta", "webhooks", "webhook_last", "rollups", "rollup_runs", "audit"}

// Counts are how many records of each kind a database holds.
type Counts struct {
	Questions, Events, Runs, Control, Learned, Deliveries, Delivered, Mail, Webhooks, Audit int
}

// Counts counts the records (a full count of each table: for hitl
// migrate's check, not for requests).
func (db *DB) Counts(ctx context.Context) (Counts, error) {
	var c Counts
	err := db.read(ctx, "count records", func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `SELECT (SELECT count(*) FROM questions), (SELECT count(*) FROM events), (SELECT count(*) FROM runs),
			(SELECT count(*) FROM control), (SELECT count(*) FROM learned), (SELECT count(*) FROM deliveries), (SELECT count(*) FROM delivered),
			(SELECT count(*) FROM mail), (SELECT count(*) FROM webhooks), (SELECT count(*) FROM audit)`).
			Scan(&c.Questions, &c.Events, &c.Runs, &c.Control, &c.Learned, &c.Deliveries, &c.Delivered, &c.Mail, &c.Webhooks, &c.Audit)
	})
	return c, err
}

// Loader writes records as they are, in the transaction of Load: the
// copy of another database (hitl migrate). It decides nothing.
type Loader struct {
	ctx    context.Context
	tx     pgx.Tx
	counts map[hitl.Status]int64
	N      Counts // what it wrote
}

// Load runs fn with a Loader in one transaction, after checking that the
// database holds nothing (or, with force, emptying it); nothing is
// written unless fn and the final state are written whole.
func (db *DB) Load(ctx context.Context, force bool, fn func(*Loader) (lastSeq, outboxCursor uint64, policy *hitl.PolicyState, err error)) error {
	return db.write(ctx, "load", func(tx pgx.Tx) error {
		// No one else writes meanwhile.
		if _, err := tx.Exec(ctx, `LOCK TABLE `+join(tables)+`, event_seq, audit_head IN ACCESS EXCLUSIVE MODE`); err != nil {
			return err
		}
		var used bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM questions) OR EXISTS (SELECT 1 FROM events) OR EXISTS (SELECT 1 FROM runs)
			OR EXISTS (SELECT 1 FROM control) OR EXISTS (SELECT 1 FROM learned) OR EXISTS (SELECT 1 FROM deliveries)
			OR EXISTS (SELECT 1 FROM delivered) OR EXISTS (SELECT 1 FROM mail) OR EXISTS (SELECT 1 FROM webhooks) OR EXISTS (SELECT 1 FROM meta) OR (SELECT seq FROM event_seq) > 0
			OR EXISTS (SELECT 1 FROM audit) OR (SELECT seq FROM audit_head) > 0`).Scan(&used); err != nil {
			return err
		}
		if used && !force {
			return fault.Errorf(fault.EINVALID, "the target database is not empty: nothing was copied (--force replaces what it holds)")
		}
		if used {
			if _, err := tx.Exec(ctx, `TRUNCATE `+join(tables)); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `UPDATE audit_head SET seq = 0, hash = '', checkpoint = NULL`); err != nil {
				return err
			}
		}
		l := &Loader{ctx: ctx, tx: tx, counts: map[hitl.Status]int64{}}
		last, cursor, policy, err := fn(l)
		if err != nil {
			return err
		}
		if last > math.MaxInt64 || cursor > math.MaxInt64 {
			return fault.Errorf(fault.EINVALID, "event sequence %d or outbox cursor %d is out of range", last, cursor)
		}
		c := change{counts: l.counts}
		if err := c.flush(ctx, tx); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE event_seq SET seq = $1`, int64(last)); err != nil {
			return err
		}
		if err := buildRollups(ctx, tx); err != nil { // the stats rollups of what was loaded
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT setval(pg_get_serial_sequence('deliveries', 'seq'), GREATEST((SELECT max(seq) FROM deliveries), 1))`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT setval(pg_get_serial_sequence('mail', 'seq'), GREATEST((SELECT max(seq) FROM mail), 1))`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT setval(pg_get_serial_sequence('webhooks', 'seq'), GREATEST((SELECT max(seq) FROM webhooks), 1))`); err != nil {
			return err
		}
		if cursor > 0 {
			if _, err := tx.Exec(ctx, `INSERT INTO meta (key, value) VALUES ('outbox_cursor', convert_to($1::bigint::text, 'UTF8'))`, int64(cursor)); err != nil {
				return err
			}
		}
		if policy != nil {
			data, err := json.Marshal(policy)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO meta (key, value) VALUES ('policy', $1)`, data); err != nil {
				return err
			}
		}
		return nil
	})
}

func join(names []string) string {
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out
}

// Question writes q as it is, with its index columns.
func (l *Loader) Question(q *hitl.Question) error {
	if err := checkQuestion(q); err != nil {
		return err
	}
	data, err := json.Marshal(q)
	if err != nil {
		return err
	}
	r := rowOf(q)
	if _, err := l.tx.Exec(l.ctx, `INSERT INTO questions (id, job_id, status, type, asker, asker_user, created_ns, timeout_ns, responded_ns,
		responded_by, idem_key, pending, unassigned, waits, sealed, data, remind_ns) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
		q.ID, q.RunID, string(q.Status), string(q.Type), q.Asker, q.AskerUser, ns(q.CreatedAt), r.timeout, r.responded,
		r.respondedBy, r.idem, r.pending, r.unassigned, r.waits, r.sealed, data, r.remind); err != nil {
		return fmt.Errorf("question %s: %w", q.ID, err)
	}
	if err := putAssignees(l.ctx, l.tx, nil, q, r); err != nil {
		return err
	}
	l.counts[q.Status]++
	l.N.Questions++
	return nil
}

// Event writes ev with its Seq.
func (l *Loader) Event(ev *hitl.Event) error {
	if ev.Seq == 0 || ev.Seq > math.MaxInt64 {
		return fault.Errorf(fault.EINVALID, "event with Seq %d", ev.Seq)
	}
	if err := nulFree("event run id", ev.RunID); err != nil {
		return err
	}
	data, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	if _, err := l.tx.Exec(l.ctx, `INSERT INTO events (seq, job_id, at_ns, data) VALUES ($1, $2, $3, $4)`, int64(ev.Seq), ev.RunID, ns(ev.At), data); err != nil {
		return fmt.Errorf("event %d: %w", ev.Seq, err)
	}
	l.N.Events++
	return nil
}

// Run writes run as it is (its Version too).
func (l *Loader) Run(run *hitl.Run) error {
	if err := nulFree("run id", run.ID); err != nil {
		return err
	}
	run.Version-- // putRun counts one more
	if err := putRun(l.ctx, l.tx, run); err != nil {
		return err
	}
	l.N.Runs++
	return nil
}

// Control writes a control record.
func (l *Loader) Control(rec *hitl.ControlRecord) error {
	if err := putControl(l.ctx, l.tx, rec); err != nil {
		return err
	}
	l.N.Control++
	return nil
}

// Learned writes a learned rule.
func (l *Loader) Learned(r *hitl.LearnedRule) error {
	if err := nulFree("learned rule id", r.ID); err != nil {
		return err
	}
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if _, err := l.tx.Exec(l.ctx, `INSERT INTO learned (id, agent, op_type, resource, expires_ns, data) VALUES ($1, $2, $3, $4, $5, $6)`,
		r.ID, []byte(r.Agent), []byte(r.OpType), []byte(r.Resource), ns(r.ExpiresAt), data); err != nil {
		return fmt.Errorf("learned rule %s: %w", r.ID, err)
	}
	l.N.Learned++
	return nil
}

// Delivery writes a queued delivery with its Seq.
func (l *Loader) Delivery(d hitl.Delivery) error {
	if d.Seq == 0 || d.Seq > math.MaxInt64 || d.Target == "" || nulFree("delivery target", d.Target) != nil {
		return fault.Errorf(fault.EINVALID, "delivery %d to %q cannot be stored", d.Seq, d.Target)
	}
	data, err := json.Marshal(d)
	if err != nil {
		return err
	}
	if _, err := l.tx.Exec(l.ctx, `INSERT INTO deliveries (seq, target, data) VALUES ($1, $2, $3)`, int64(d.Seq), d.Target, data); err != nil {
		return fmt.Errorf("delivery %d: %w", d.Seq, err)
	}
	l.N.Deliveries++
	return nil
}

// Delivered writes where a question (or a run's live message) was
// delivered.
func (l *Loader) Delivered(m hitl.Delivered) error {
	if err := nulFree("delivery record", m.QuestionID, m.Target, m.Channel, m.TS); err != nil {
		return err
	}
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if _, err := l.tx.Exec(l.ctx, `INSERT INTO delivered (question_id, target, channel, ts, data) VALUES ($1, $2, $3, $4, $5)`,
		m.QuestionID, m.Target, m.Channel, m.TS, data); err != nil {
		return fmt.Errorf("delivery record of %s: %w", m.QuestionID, err)
	}
	l.N.Delivered++
	return nil
}

// Mail writes a queued mail with its Seq.
func (l *Loader) Mail(m hitl.Mail) error {
	if m.Seq == 0 || m.Seq > math.MaxInt64 {
		return fault.Errorf(fault.EINVALID, "mail %d cannot be stored", m.Seq)
	}
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if _, err := l.tx.Exec(l.ctx, `INSERT INTO mail (seq, next_ns, data) VALUES ($1, $2, $3)`, int64(m.Seq), ns(m.NextAt), data); err != nil {
		return fmt.Errorf("mail %d: %w", m.Seq, err)
	}
	l.N.Mail++
	return nil
}

// MailCursor writes the mail outbox's cursor (0: none).
func (l *Loader) MailCursor(cursor uint64) error {
	if cursor == 0 {
		return nil
	}
	if cursor > math.MaxInt64 {
		return fault.Errorf(fault.EINVALID, "mail cursor %d is out of range", cursor)
	}
	_, err := l.tx.Exec(l.ctx, `INSERT INTO meta (key, value) VALUES ('mail_cursor', convert_to($1::bigint::text, 'UTF8'))`, int64(cursor))
	return err
}

// Webhook writes a webhook delivery (any status) with its Seq; a
// delivered one counts as its target's last success.
func (l *Loader) Webhook(d hitl.WebhookDelivery) error {
	if d.Seq == 0 || d.Seq > math.MaxInt64 {
		return fault.Errorf(fault.EINVALID, "webhook delivery %d cannot be stored", d.Seq)
	}
	if err := nulFree("webhook target", d.Target(), d.RunID, d.Asker); err != nil {
		return err
	}
	data, err := json.Marshal(d)
	if err != nil {
		return err
	}
	var settled *int64
	if d.Status != hitl.WebhookPending && d.SettledAt != nil {
		s := ns(*d.SettledAt)
		settled = &s
	}
	if _, err := l.tx.Exec(l.ctx, `INSERT INTO webhooks (seq, target, asker, run_id, status, next_ns, settled_ns, data) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		int64(d.Seq), d.Target(), d.Asker, d.RunID, string(d.Status), ns(d.NextAt), settled, data); err != nil {
		return fmt.Errorf("webhook delivery %d: %w", d.Seq, err)
	}
	if d.Status == hitl.WebhookDelivered && settled != nil {
		if _, err := l.tx.Exec(l.ctx, `INSERT INTO webhook_last (target, at_ns) VALUES ($1, $2)
			ON CONFLICT (target) DO UPDATE SET at_ns = greatest(webhook_last.at_ns, excluded.at_ns)`, d.Target(), *settled); err != nil {
			return err
		}
	}
	l.N.Webhooks++
	return nil
}
