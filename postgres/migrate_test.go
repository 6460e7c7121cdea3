package postgres

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
)

// The migration tests fill a database of the current version, turn it back
// into what an older version held, and open it again.

// migrationT0 is when the migration tests' questions are created.
var migrationT0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// createDue stores q, created at migrationT0 and due minutes later (never
// when minutes < 0).
func createDue(t *testing.T, db *DB, q *hitl.Question, minutes int) {
	t.Helper()
	q.RunID, q.Asker, q.Type, q.ResponseType, q.CreatedAt = "run-1", "api:ci", hitl.Blocking, hitl.TextResponse, migrationT0
	if minutes >= 0 {
		at := migrationT0.Add(time.Duration(minutes) * time.Minute)
		q.TimeoutAt = &at
	}
	if _, _, err := db.CreateQuestion(context.Background(), q, nil, nil); err != nil {
		t.Fatal(err)
	}
}

// downgrade runs sqls on db, which turn it into what an older version
// held, closes it and opens url again: the migration runs.
func downgrade(t *testing.T, db *DB, url string, sqls ...string) *DB {
	t.Helper()
	for _, sql := range sqls {
		if _, err := db.pool.Exec(context.Background(), sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	_ = db.Close()
	return openDB(t, url)
}

// listCase is a filter and the ids of the list it reads, in order.
type listCase struct {
	f    hitl.QuestionFilter
	want []string
}

// checkLists reads each case's list from db.
func checkLists(t *testing.T, db *DB, cases []listCase) {
	t.Helper()
	for _, c := range cases {
		page, err := db.Questions(context.Background(), c.f)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, q := range page.Questions {
			got = append(got, q.ID)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%+v: got %v, want %v", c.f, got, c.want)
		}
	}
}
