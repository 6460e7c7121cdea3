package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// migrations are the schema, one version each, applied in order at Open
// and recorded in hitl_schema_version. A released version is never
// edited: a change is a new version appended here.
//
// The indexes, and the lists they serve (each read in the index's order,
// the cursor a row comparison on its trailing columns):
//
//	questions_by_created      (created_ns, id)                      every question
//	questions_by_job          (job_id, created_ns, id)              a run's questions
//	questions_by_status       (status, created_ns, id)              the pending page, any status
//	questions_by_asker        (asker, created_ns, id)               an asker's questions
//	questions_by_asker_status (asker, status, created_ns, id)       an asker's pending ones
//	questions_by_type         (type, created_ns, id)                by type
//	questions_by_type_status  (type, status, created_ns, id)        by type and status
//	questions_unassigned      (created_ns, id) WHERE unassigned     pending with no assignee
//	questions_by_responder    (responded_by, responded_ns, id)      a person's answers
//	questions_by_deadline     (timeout_ns, id) WHERE pending        due questions
//	questions_by_settled      (responded_ns, id) WHERE settled      retention
//	questions_pending_by_due  (coalesce(timeout_ns, max), id) WHERE pending     the pending list by deadline
//	questions_unassigned_by_due (coalesce(timeout_ns, max), id) WHERE unassigned  the unassigned list by deadline
//	questions_run_by_due      (job_id, coalesce(timeout_ns, max), id) WHERE pending a run's, by deadline
//	questions_type_by_due     (type, coalesce(timeout_ns, max), id) WHERE pending   a type's, by deadline
//	questions_run_waits       (job_id, created_ns, id) WHERE waits  the question a run waits on
//	questions_sealed          (id) WHERE sealed                     sealed answers
//	questions_idem            UNIQUE (job_id, idem_key)             idempotency keys held
//	assignees                 PK (assignee, created_ns, question_id) a person's queue (pending; Question.Listed)
//	assignees_by_due          (assignee, due_ns, question_id)       a person's queue by deadline
//	events                    PK (seq)                              the event log
//	events_by_run             (job_id, seq)                         a run's events
//	runs                      PK (id); runs_active (id) WHERE active; runs_ended (ended_ns, id)
//	control                   PK (principal, request_id); control_by_age (at_ns, principal, request_id)
//	learned                   PK (id); UNIQUE (agent, op_type, resource); (agent, id); (expires_ns, id)
//	deliveries                PK (seq); deliveries_by_target (target, seq)
//	delivered                 PK (question_id, target); delivered_by_ts (channel, ts)
//	delivery_claims           PK (target)                           who does a target's deliveries
//	web_sessions              PK (id); web_sessions_by_expiry (expires_ns, id)
//	questions_by_reminder     (remind_ns, id) WHERE a reminder is due   due reminders (reminder.go)
//	mail                      PK (seq); mail_by_due (next_ns, seq)  the email outbox (mail.go)
//	envelopes                 PK (id); envelopes_by_age (at_ns, id)  Slack envelopes handled
//	webhooks                  PK (seq); webhooks_queue (target, run_id, seq) WHERE pending; webhooks_due (next_ns, seq) WHERE pending (asker: a callback's);
//	                          webhooks_by_status (status, seq); webhooks_settled (settled_ns, seq)  the webhook outbox (webhook.go)
//	webhook_last              PK (target)                           a target's last success
//	rollups                   PK (span_ns, start_ns)                stats rollups (rollup.go); rollup_runs PK (job_id), (last_ns)
//	audit                     PK (seq); audit_head: one row         the audit trail (audit.go)
//	rate_buckets              PK (key); rate_buckets_by_age (at_ns, key)  rate limits (unlogged)
//
// A learned rule's key and an idempotency key are bytea: they may hold NUL
// bytes, which text cannot. Text columns that lists order by are COLLATE "C": byte order, as the
// bbolt store's keys, whatever the database's default collation.
var migrations = []string{
	1: `
CREATE TABLE meta (key text COLLATE "C" PRIMARY KEY, value bytea NOT NULL);

CREATE TABLE event_seq (one boolean PRIMARY KEY DEFAULT true CHECK (one), seq bigint NOT NULL);
INSERT INTO event_seq (seq) VALUES (0);

CREATE TABLE questions (
	id           text COLLATE "C" PRIMARY KEY,
	job_id       text COLLATE "C" NOT NULL,
	status       text COLLATE "C" NOT NULL,
	type         text COLLATE "C" NOT NULL,
	asker        text COLLATE "C" NOT NULL,
	asker_user   text COLLATE "C" NOT NULL,
	created_ns   bigint NOT NULL,
	timeout_ns   bigint,
	responded_ns bigint,
	responded_by text COLLATE "C",
	idem_key     bytea,
	pending      boolean NOT NULL,
	unassigned   boolean NOT NULL,
	waits        boolean NOT NULL,
	sealed       boolean NOT NULL,
	data         bytea NOT NULL
);
CREATE INDEX questions_by_created ON questions (created_ns, id);
CREATE INDEX questions_by_job ON questions (job_id, created_ns, id);
CREATE INDEX questions_by_status ON questions (status, created_ns, id);
CREATE INDEX questions_by_asker ON questions (asker, created_ns, id);
CREATE INDEX questions_by_asker_status ON questions (asker, status, created_ns, id);
CREATE INDEX questions_by_type ON questions (type, created_ns, id);
CREATE INDEX questions_by_type_status ON questions (type, status, created_ns, id);
CREATE INDEX questions_unassigned ON questions (created_ns, id) WHERE unassigned;
CREATE INDEX questions_by_responder ON questions (responded_by, responded_ns, id) WHERE responded_by IS NOT NULL;
CREATE INDEX questions_by_deadline ON questions (timeout_ns, id) WHERE timeout_ns IS NOT NULL;
CREATE INDEX questions_by_settled ON questions (responded_ns, id) WHERE responded_ns IS NOT NULL;
CREATE INDEX questions_run_waits ON questions (job_id, created_ns, id) WHERE waits;
CREATE INDEX questions_sealed ON questions (id) WHERE sealed;
CREATE UNIQUE INDEX questions_idem ON questions (job_id, idem_key) WHERE idem_key IS NOT NULL;

CREATE TABLE assignees (
	assignee    text COLLATE "C" NOT NULL,
	created_ns  bigint NOT NULL,
	question_id text COLLATE "C" NOT NULL,
	PRIMARY KEY (assignee, created_ns, question_id)
);
CREATE INDEX assignees_by_question ON assignees (question_id);

CREATE TABLE counts (status text COLLATE "C" PRIMARY KEY, n bigint NOT NULL);

CREATE TABLE events (seq bigint PRIMARY KEY, job_id text COLLATE "C" NOT NULL, at_ns bigint NOT NULL, data bytea NOT NULL);
CREATE INDEX events_by_run ON events (job_id, seq) WHERE job_id <> '';

CREATE TABLE runs (id text COLLATE "C" PRIMARY KEY, active boolean NOT NULL, ended_ns bigint, data bytea NOT NULL);
CREATE INDEX runs_active ON runs (id) WHERE active;
CREATE INDEX runs_ended ON runs (ended_ns, id) WHERE ended_ns IS NOT NULL;

CREATE TABLE control (request_id text COLLATE "C" PRIMARY KEY, at_ns bigint NOT NULL, data bytea NOT NULL);
CREATE INDEX control_by_age ON control (at_ns, request_id);

CREATE TABLE learned (
	id         text COLLATE "C" PRIMARY KEY,
	agent      bytea NOT NULL,
	op_type    bytea NOT NULL,
	resource   bytea NOT NULL,
	expires_ns bigint NOT NULL,
	data       bytea NOT NULL,
	UNIQUE (agent, op_type, resource)
);
CREATE INDEX learned_by_agent ON learned (agent, id);
CREATE INDEX learned_by_expiry ON learned (expires_ns, id);

CREATE TABLE deliveries (seq bigserial PRIMARY KEY, target text COLLATE "C" NOT NULL, data bytea NOT NULL);
CREATE INDEX deliveries_by_target ON deliveries (target, seq);

CREATE TABLE delivered (
	question_id text COLLATE "C" NOT NULL,
	target      text COLLATE "C" NOT NULL,
	channel     text COLLATE "C" NOT NULL,
	ts          text COLLATE "C" NOT NULL,
	data        bytea NOT NULL,
	PRIMARY KEY (question_id, target)
);
CREATE INDEX delivered_by_ts ON delivered (channel, ts);
`,
	// Replicas sharing the outbox: a target's deliveries are done by the
	// replica holding its claim, until the claim's lease runs out.
	2: `
CREATE TABLE delivery_claims (target text COLLATE "C" PRIMARY KEY, holder text NOT NULL, until_ns bigint NOT NULL);
`,
	// Web inbox sessions and one-time sign-in links, pruned by expiry.
	3: `
CREATE TABLE web_sessions (id text COLLATE "C" PRIMARY KEY, expires_ns bigint NOT NULL, data bytea NOT NULL);
CREATE INDEX web_sessions_by_expiry ON web_sessions (expires_ns, id);
`,
	// Reminder plans (issue 15): when a pending question's next reminder
	// or escalation is due. Questions of earlier versions hold no plan.
	4: `
ALTER TABLE questions ADD COLUMN remind_ns bigint;
CREATE INDEX questions_by_reminder ON questions (remind_ns, id) WHERE remind_ns IS NOT NULL;
`,
	// Pending questions listed by deadline (QuestionFilter.ByDeadline):
	// the pending list, the unassigned list and each assignee's, those
	// that never time out last (neverDue, math.MaxInt64).
	5: `
CREATE INDEX questions_pending_by_due ON questions ((coalesce(timeout_ns, 9223372036854775807)), id) WHERE pending;
CREATE INDEX questions_unassigned_by_due ON questions ((coalesce(timeout_ns, 9223372036854775807)), id) WHERE unassigned;
ALTER TABLE assignees ADD COLUMN due_ns bigint NOT NULL DEFAULT 9223372036854775807;
UPDATE assignees a SET due_ns = q.timeout_ns FROM questions q WHERE q.id = a.question_id AND q.timeout_ns IS NOT NULL;
CREATE INDEX assignees_by_due ON assignees (assignee, due_ns, question_id);
CREATE INDEX questions_run_by_due ON questions (job_id, (coalesce(timeout_ns, 9223372036854775807)), id) WHERE pending;
CREATE INDEX questions_type_by_due ON questions (type, (coalesce(timeout_ns, 9223372036854775807)), id) WHERE pending;
`,
	// The email outbox (issue 15): mail owed, by when it is due (a claimed
	// mail is due when its claim runs out); its cursor is meta's
	// 'mail_cursor'.
	6: `
CREATE TABLE mail (seq bigserial PRIMARY KEY, next_ns bigint NOT NULL, data bytea NOT NULL);
CREATE INDEX mail_by_due ON mail (next_ns, seq);
`,
	// Slack envelopes handled (any replica), pruned by age as new ones come.
	7: `
CREATE TABLE envelopes (id text COLLATE "C" PRIMARY KEY, at_ns bigint NOT NULL);
CREATE INDEX envelopes_by_age ON envelopes (at_ns, id);
`,
	// Rate limit buckets every replica shares (limiter.go): unlogged, as
	// a bucket lost to a crash is a full one.
	8: `
CREATE UNLOGGED TABLE rate_buckets (key text COLLATE "C" PRIMARY KEY, tokens double precision NOT NULL, at_ns bigint NOT NULL);
CREATE INDEX rate_buckets_by_age ON rate_buckets (at_ns, key);
`,
	// A pending question is in the assignee lists of the people
	// escalation added too (hitl.Question.Listed): the pending escalated
	// questions of earlier versions get their entries. Only rows whose
	// JSON names escalatedTo are parsed; a NUL (\u0000, which PostgreSQL's
	// JSON operators refuse) in another field is read as a space, and the
	// JSON stays valid whatever precedes it.
	9: `
INSERT INTO assignees (assignee, created_ns, question_id, due_ns)
SELECT e.id, q.created_ns, q.id, coalesce(q.timeout_ns, 9223372036854775807)
FROM questions q,
	json_array_elements_text(replace(convert_from(q.data, 'UTF8'), '\u0000', '\u0020')::json -> 'escalatedTo') AS e(id)
WHERE q.pending AND position('"escalatedTo"'::bytea IN q.data) > 0
ON CONFLICT DO NOTHING;
`,
	// Control request ids are held per principal (hitl.ControlKeyOf):
	// another principal's request with the same id is a new request. A
	// record's principal is its "by", the local principals of a
	// tokenless server folded into "local" as ControlKeyOf did at this
	// version; NULs are read as in version 9.
	10: `
ALTER TABLE control ADD COLUMN principal text COLLATE "C" NOT NULL DEFAULT '';
UPDATE control c SET principal = CASE WHEN b.by = 'local' OR left(b.by, 6) = 'local:' THEN 'local' ELSE b.by END
FROM (SELECT request_id, coalesce(replace(convert_from(data, 'UTF8'), '\u0000', '\u0020')::json ->> 'by', '') AS by FROM control) b
WHERE b.request_id = c.request_id;
ALTER TABLE control ALTER COLUMN principal DROP DEFAULT;
ALTER TABLE control DROP CONSTRAINT control_pkey;
ALTER TABLE control ADD PRIMARY KEY (principal, request_id);
DROP INDEX control_by_age;
CREATE INDEX control_by_age ON control (at_ns, principal, request_id);
`,
	// runs.active marks the open runs (hitl.Run.Open): a run that has not
	// ended and waits on a person is open too. Only rows that are not
	// active, have not ended and name a pending question they wait on
	// (waitingOn) are parsed.
	11: `
UPDATE runs SET active = true
WHERE NOT active AND ended_ns IS NULL AND position('"waitingOn"'::bytea IN data) > 0
	AND coalesce((replace(convert_from(data, 'UTF8'), '\u0000', '\u0020')::json ->> 'pendingInput')::int, 0)
		+ coalesce((replace(convert_from(data, 'UTF8'), '\u0000', '\u0020')::json ->> 'pendingApproval')::int, 0) > 0;
`,
	// The webhook outbox (docs/webhooks.md, webhook.go): deliveries written with
	// their events; a queue per (target, run) whose pending head is due.
	12: `
CREATE TABLE webhooks (seq bigserial PRIMARY KEY, target text COLLATE "C" NOT NULL, run_id text COLLATE "C" NOT NULL,
	status text COLLATE "C" NOT NULL, next_ns bigint NOT NULL, settled_ns bigint, data bytea NOT NULL);
CREATE INDEX webhooks_queue ON webhooks (target, run_id, seq) WHERE status = 'pending';
CREATE INDEX webhooks_due ON webhooks (next_ns, seq) WHERE status = 'pending';
CREATE INDEX webhooks_by_status ON webhooks (status, seq);
CREATE INDEX webhooks_settled ON webhooks (settled_ns, seq) WHERE settled_ns IS NOT NULL;
CREATE TABLE webhook_last (target text COLLATE "C" PRIMARY KEY, at_ns bigint NOT NULL);
`,
	// Stats read rollups (hitl.Rollup, rollup.go): an hour's or a minute's
	// counts and answer-time sketch, and each run's last question time;
	// built from the questions and the log by buildRollups (goSteps).
	13: `
CREATE TABLE rollups (span_ns bigint NOT NULL, start_ns bigint NOT NULL, data bytea NOT NULL, PRIMARY KEY (span_ns, start_ns));
CREATE TABLE rollup_runs (job_id text COLLATE "C" PRIMARY KEY, last_ns bigint NOT NULL);
CREATE INDEX rollup_runs_by_age ON rollup_runs (last_ns);
`,
	// The audit trail (audit.go): hash-chained records, and the chain's
	// head, one row whose lock serializes appends across replicas.
	14: `
CREATE TABLE IF NOT EXISTS audit (seq bigint PRIMARY KEY, at_ns bigint NOT NULL, data bytea NOT NULL);
CREATE TABLE IF NOT EXISTS audit_head (one boolean PRIMARY KEY DEFAULT true CHECK (one), seq bigint NOT NULL, hash text NOT NULL, checkpoint bytea);
INSERT INTO audit_head (seq, hash) VALUES (0, '') ON CONFLICT DO NOTHING;
`,
	// A callback's target is its callbackUrl's normalised origin
	// (webhook.CallbackOrigin: version 14 kept the host as spelled), and
	// a delivery names its asker (callbacks are capped per asker):
	// retargetWebhooks (goSteps) renames the callbacks' targets and
	// rebuilds their last successes.
	15: `
ALTER TABLE webhooks ADD COLUMN IF NOT EXISTS asker text COLLATE "C" NOT NULL DEFAULT '';
`,
}

// goSteps are the steps of a version written in Go, run after its SQL.
var goSteps = map[int]func(ctx context.Context, tx pgx.Tx) error{
	13: buildRollups,
	15: retargetWebhooks,
}

// SchemaVersion is the schema version this package reads and writes.
var SchemaVersion = len(migrations) - 1

// migrationLock is the advisory lock key the migration holds: two
// processes starting at once migrate one after the other, and the second
// finds nothing to do.
const migrationLock = 0x6869746c // "hitl"

// migrate brings the schema to SchemaVersion in one transaction under the
// migration lock. A database of a newer version is left untouched.
func (db *DB) migrate(ctx context.Context) error {
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrationLock)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS hitl_schema_version (version int NOT NULL)`); err != nil {
			return err
		}
		var ver int
		err := tx.QueryRow(ctx, `SELECT version FROM hitl_schema_version`).Scan(&ver)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			if _, err := tx.Exec(ctx, `INSERT INTO hitl_schema_version VALUES (0)`); err != nil {
				return err
			}
		case err != nil:
			return err
		}
		if ver > SchemaVersion {
			return fmt.Errorf("database schema version %d is newer than this hitl supports (%d): upgrade hitl", ver, SchemaVersion)
		}
		for v := ver + 1; v <= SchemaVersion; v++ {
			if _, err := tx.Exec(ctx, migrations[v]); err != nil {
				return fmt.Errorf("schema version %d: %w", v, err)
			}
			if step := goSteps[v]; step != nil {
				if err := step(ctx, tx); err != nil {
					return fmt.Errorf("schema version %d: %w", v, err)
				}
			}
		}
		_, err = tx.Exec(ctx, `UPDATE hitl_schema_version SET version = $1`, SchemaVersion)
		return err
	})
	if err != nil {
		return classify("migrate the schema", err)
	}
	return nil
}
