package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/pgtest"
)

// explainRows is how many questions (and queued deliveries) the plans are
// checked at: enough that the planner, with fresh statistics, reads an
// index because it is cheaper, not because the table is tiny.
const explainRows = 50_000

// TestListsReadTheirIndex fills a database with explainRows questions (2%
// pending, 1,000 runs) and deliveries (500 targets), ANALYZEs it, and
// checks that the plans of the store's own queries for the pending page,
// a run's questions, the lists by deadline, due questions, the outbox's next delivery and due mail read the
// index each is meant to: an Index Scan or Index Only Scan node on it, and
// no sequential scan of the table. enable_seqscan stays on.
func TestListsReadTheirIndex(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, pgtest.DB(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	fill := []string{
		fmt.Sprintf(`INSERT INTO questions (id, job_id, status, type, asker, asker_user, created_ns, timeout_ns, responded_ns, responded_by,
			pending, unassigned, waits, sealed, data)
		SELECT 'q_' || lpad(i::text, 8, '0'), 'run-' || (i %% 20), CASE WHEN i %% 50 = 0 THEN 'pending' ELSE 'answered' END, CASE WHEN i %% 3 = 0 THEN 'approval' ELSE 'blocking' END,
			'api:agent-' || (i %% 7), '', %[1]d + i * 1000000,
			CASE WHEN i %% 50 = 0 THEN %[1]d + i * 2000000 END,
			CASE WHEN i %% 50 <> 0 THEN %[1]d + i * 1000000 + 5 END,
			CASE WHEN i %% 50 <> 0 THEN 'slack:U' || (i %% 30) END,
			i %% 50 = 0, i %% 50 = 0, i %% 50 = 0, false, '{}'::bytea
		FROM generate_series(1::bigint, %[2]d) i`, now.Add(-24*time.Hour).UnixNano(), explainRows),
		fmt.Sprintf(`INSERT INTO assignees (assignee, created_ns, question_id, due_ns)
		SELECT 'U' || (i %% 30), %[1]d + i * 1000000, 'q_' || lpad(i::text, 8, '0'), %[1]d + i * 2000000
		FROM generate_series(1::bigint, %[2]d) i`, now.Add(-24*time.Hour).UnixNano(), explainRows),
		fmt.Sprintf(`INSERT INTO deliveries (target, data) SELECT 'C' || (i %% 500), '{}'::bytea FROM generate_series(1, %d) i`, explainRows),
		// Queued mail, 1 in 1,000 due (the rest claimed or backing off).
		fmt.Sprintf(`INSERT INTO mail (next_ns, data) SELECT %d + CASE WHEN i %% 1000 = 0 THEN -i ELSE i END * 1000000000::bigint, '{}'::bytea
		FROM generate_series(1::bigint, %d) i`, now.UnixNano(), explainRows),
		`ANALYZE`,
	}
	for _, sql := range fill {
		if _, err := db.pool.Exec(ctx, sql); err != nil {
			t.Fatalf("fill: %v", err)
		}
	}
	page := func(f hitl.QuestionFilter) (string, []any) {
		t.Helper()
		sql, args, err := listQuery(f)
		if err != nil {
			t.Fatal(err)
		}
		return sql, args
	}
	// The cursor of a page in the middle of every list.
	cursor := encodeCursor(now.Add(-24*time.Hour).UnixNano()+explainRows/2*1000000, fmt.Sprintf("q_%08d", explainRows/2))
	cases := []struct {
		name, index string
		sql         string
		args        []any
		bitmap      bool // a bitmap scan of the index (then a sort of what it holds) will do
	}{
		{name: "the pending page", index: "questions_by_status"},
		{name: "the pending page, after a cursor", index: "questions_by_status"},
		{name: "the pending page, newest first", index: "questions_by_status"},
		{name: "a run's questions", index: "questions_by_job"},
		{name: "a run's questions, after a cursor", index: "questions_by_job"},
		{name: "the pending page by deadline", index: "questions_pending_by_due"},
		{name: "the pending page by deadline, after a cursor", index: "questions_pending_by_due"},
		{name: "the unassigned page by deadline", index: "questions_unassigned_by_due"},
		{name: "an assignee's page by deadline, after a cursor", index: "assignees_by_due"},
		// A run's pending questions are few (the planner, assuming run and
		// status independent, expects 48 here): reading them all from
		// the index and sorting them costs the run's, not the store's.
		{name: "a run's pending page by deadline", index: "questions_run_by_due", bitmap: true},
		{name: "a type's pending page by deadline", index: "questions_type_by_due"},
		{name: "due questions", index: "questions_by_deadline", sql: dueSQL, args: []any{ns(now), 100}},
		{name: "due reminders", index: "questions_by_reminder", sql: dueRemindersSQL, args: []any{ns(now), 100}},
		{name: "the outbox's next delivery", index: "deliveries_by_target", sql: nextDeliverySQL, args: []any{"C42"}},
		{name: "due mail, claimed", index: "mail_by_due", sql: claimMailSQL, args: []any{ns(now), 1}},
	}
	cases[0].sql, cases[0].args = page(hitl.QuestionFilter{Status: hitl.StatusPending, Limit: 50})
	cases[1].sql, cases[1].args = page(hitl.QuestionFilter{Status: hitl.StatusPending, Limit: 50, Cursor: cursor})
	cases[2].sql, cases[2].args = page(hitl.QuestionFilter{Status: hitl.StatusPending, Limit: 50, Reverse: true})
	cases[3].sql, cases[3].args = page(hitl.QuestionFilter{RunID: "run-7", Limit: 50})
	cases[4].sql, cases[4].args = page(hitl.QuestionFilter{RunID: "run-7", Limit: 50, Cursor: cursor})
	dueCursor := encodeCursor(now.Add(-24*time.Hour).UnixNano()+explainRows/2*2000000, fmt.Sprintf("q_%08d", explainRows/2))
	cases[5].sql, cases[5].args = page(hitl.QuestionFilter{ByDeadline: true, Limit: 50})
	cases[6].sql, cases[6].args = page(hitl.QuestionFilter{ByDeadline: true, Limit: 50, Cursor: dueCursor})
	cases[7].sql, cases[7].args = page(hitl.QuestionFilter{ByDeadline: true, Unassigned: true, Limit: 50})
	cases[8].sql, cases[8].args = page(hitl.QuestionFilter{ByDeadline: true, Assignee: "U1", Limit: 50, Cursor: dueCursor})
	cases[9].sql, cases[9].args = page(hitl.QuestionFilter{ByDeadline: true, RunID: "run-10", Limit: 50}) // 500 pending
	cases[10].sql, cases[10].args = page(hitl.QuestionFilter{ByDeadline: true, Type: hitl.Approval, Limit: 50})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out []byte
			if err := db.pool.QueryRow(ctx, "EXPLAIN (FORMAT JSON) "+c.sql, c.args...).Scan(&out); err != nil {
				t.Fatalf("explain %s: %v", c.sql, err)
			}
			var plans []struct{ Plan plan }
			if err := json.Unmarshal(out, &plans); err != nil || len(plans) != 1 {
				t.Fatalf("plan %s: %v", out, err)
			}
			var found bool
			var seq []string
			plans[0].Plan.walk(func(p *plan) {
				if (p.NodeType == "Index Scan" || p.NodeType == "Index Only Scan" || (c.bitmap && p.NodeType == "Bitmap Index Scan")) && p.IndexName == c.index {
					found = true
				}
				if p.NodeType == "Seq Scan" {
					seq = append(seq, p.RelationName)
				}
			})
			if !found || len(seq) > 0 {
				t.Errorf("%s: want an index scan of %s and no sequential scan; the plan:\n%s", c.name, c.index, indent(out))
			}
		})
	}
}

// plan is a node of EXPLAIN (FORMAT JSON).
type plan struct {
	NodeType     string `json:"Node Type"`
	IndexName    string `json:"Index Name"`
	RelationName string `json:"Relation Name"`
	Plans        []plan `json:"Plans"`
}

func (p *plan) walk(fn func(*plan)) {
	fn(p)
	for i := range p.Plans {
		p.Plans[i].walk(fn)
	}
}

func indent(b []byte) string {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return string(b)
	}
	out, _ := json.MarshalIndent(v, "  ", "  ")
	return strings.TrimSpace(string(out))
}
