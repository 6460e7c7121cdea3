package postgres

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
)

// A question list's cursor is the position of the last question of the
// page in the list's order: its time column (created_ns, or responded_ns
// for a person's answers) and its id.

func encodeCursor(at int64, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(at, 10) + " " + id))
}

func decodeCursor(c string) (int64, string, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err == nil {
		if at, id, ok := strings.Cut(string(b), " "); ok {
			if n, err := strconv.ParseInt(at, 10, 64); err == nil {
				return n, id, nil
			}
		}
	}
	return 0, "", fault.Errorf(fault.EINVALID, "cursor %q does not belong to this list: use the nextCursor of the previous page, with the same filters", c)
}

// where builds the conditions of f on questions q, from argument $n on.
type where struct {
	conds []string
	args  []any
}

func (w *where) add(cond string, args ...any) {
	for _, a := range args {
		w.args = append(w.args, a)
		cond = strings.Replace(cond, "?", "$"+strconv.Itoa(len(w.args)), 1)
	}
	w.conds = append(w.conds, cond)
}

func (w *where) sql() string {
	if len(w.conds) == 0 {
		return "true"
	}
	return strings.Join(w.conds, " AND ")
}

// filter adds the conditions of f other than the queue's.
func (w *where) filter(f hitl.QuestionFilter) {
	if f.RunID != "" {
		w.add("q.job_id = ?", f.RunID)
	}
	if f.Asker != "" {
		w.add("q.asker = ?", f.Asker)
	}
	if f.Status != "" {
		w.add("q.status = ?", string(f.Status))
	}
	if f.Type != "" {
		w.add("q.type = ?", string(f.Type))
	}
	if f.Assignee != "" {
		w.add("EXISTS (SELECT 1 FROM assignees a WHERE a.question_id = q.id AND a.assignee = ?)", f.Assignee)
	}
	if f.Unassigned && len(f.Queue) == 0 {
		w.add("q.unassigned")
	}
	if f.RespondedBy != "" {
		w.add("q.responded_by = ?", f.RespondedBy)
	}
	if f.NotAskedBy != "" {
		w.add("q.asker_user <> ? AND q.asker <> ?", f.NotAskedBy, "slack:"+f.NotAskedBy)
	}
	if f.ByDeadline && !f.Unassigned && f.Assignee == "" && len(f.Queue) == 0 {
		w.add("q.pending") // assignees and q.unassigned hold pending questions only
	}
}

// dueCol is a question's place in the lists by deadline, as the
// by-deadline indexes hold it (schema version 5).
const dueCol = "coalesce(q.timeout_ns, 9223372036854775807)"

// Questions implements hitl.QuestionStore. The conditions of f are one query in
// the order of the index f names (schema.go); the planner reads that
// index from the cursor, so the cost grows with the page.
func (db *DB) Questions(ctx context.Context, f hitl.QuestionFilter) (hitl.QuestionPage, error) {
	if err := nulFree("filter", append([]string{f.RunID, f.Asker, f.Assignee, f.RespondedBy, f.NotAskedBy, string(f.Status), string(f.Type)}, f.Queue...)...); err != nil {
		return hitl.QuestionPage{Questions: []*hitl.Question{}}, nil // nothing stored holds a NUL byte
	}
	if len(f.Queue) > 0 {
		return db.queue(ctx, f)
	}
	sql, args, err := listQuery(f)
	if err != nil {
		return hitl.QuestionPage{}, err
	}
	size := f.PageSize()
	page := hitl.QuestionPage{Questions: make([]*hitl.Question, 0, min(size, 64))}
	var lastAt int64
	var lastID string
	rows, err := db.pool.Query(ctx, sql, args...)
	if err != nil {
		return hitl.QuestionPage{}, classify("list questions", err)
	}
	defer rows.Close()
	for rows.Next() {
		var at int64
		var data []byte
		if err := rows.Scan(&at, &data); err != nil {
			return hitl.QuestionPage{}, classify("list questions", err)
		}
		if len(page.Questions) == size {
			page.NextCursor = encodeCursor(lastAt, lastID)
			break
		}
		q, err := decodeQuestion(data)
		if err != nil {
			return hitl.QuestionPage{}, err
		}
		page.Questions = append(page.Questions, q)
		lastAt, lastID = at, q.ID
	}
	if err := rows.Err(); err != nil {
		return hitl.QuestionPage{}, classify("list questions", err)
	}
	return page, nil
}

// queue reads a person's queue: the newest (or oldest; by deadline, the
// soonest or latest) page of each of its sources (one assignee's
// entries, the unassigned index) after the cursor, merged by the query;
// only the questions returned are read. By creation time a queue is one
// page (More); by deadline it goes on with NextCursor.
func (db *DB) queue(ctx context.Context, f hitl.QuestionFilter) (hitl.QuestionPage, error) {
	if f.Cursor != "" && !f.ByDeadline {
		return hitl.QuestionPage{}, fault.Errorf(fault.EINVALID, "a queue by creation time is read in one page: it takes no cursor")
	}
	size := f.PageSize()
	dir, op := "", ">"
	if f.Reverse {
		dir, op = " DESC", "<"
	}
	var w where
	w.filter(hitl.QuestionFilter{RunID: f.RunID, Asker: f.Asker, Status: f.Status, Type: f.Type, RespondedBy: f.RespondedBy, NotAskedBy: f.NotAskedBy}) // both sources hold pending questions only
	assigneeCol, unassignedCol := "a.created_ns", "q.created_ns"
	if f.ByDeadline {
		assigneeCol, unassignedCol = "a.due_ns", dueCol
	}
	after := ""
	if f.Cursor != "" {
		at, last, err := decodeCursor(f.Cursor)
		if err != nil {
			return hitl.QuestionPage{}, err
		}
		w.args = append(w.args, at, last)
		after = fmt.Sprintf(" AND (%%s, %%s) %s ($%d, $%d)", op, len(w.args)-1, len(w.args))
	}
	rest := w.sql()
	var parts []string
	for _, id := range f.Queue {
		w.args = append(w.args, id)
		cond := ""
		if after != "" {
			cond = fmt.Sprintf(after, assigneeCol, "a.question_id")
		}
		parts = append(parts, fmt.Sprintf(`(SELECT %s AS at, a.question_id FROM assignees a JOIN questions q ON q.id = a.question_id
			WHERE a.assignee = $%d AND %s%s ORDER BY %s%s, a.question_id%s LIMIT %d)`, assigneeCol, len(w.args), rest, cond, assigneeCol, dir, dir, size+1))
	}
	if f.Unassigned {
		cond := ""
		if after != "" {
			cond = fmt.Sprintf(after, unassignedCol, "q.id")
		}
		parts = append(parts, fmt.Sprintf(`(SELECT %s AS at, q.id FROM questions q WHERE q.unassigned AND %s%s ORDER BY %s%s, q.id%s LIMIT %d)`,
			unassignedCol, rest, cond, unassignedCol, dir, dir, size+1))
	}
	sql := fmt.Sprintf(`SELECT m.at, q.data FROM (SELECT DISTINCT at, question_id FROM (%s) s ORDER BY at%s, question_id%s LIMIT %d) m
		JOIN questions q ON q.id = m.question_id ORDER BY m.at%s, m.question_id%s`,
		strings.Join(parts, " UNION ALL "), dir, dir, size+1, dir, dir)
	rows, err := db.pool.Query(ctx, sql, w.args...)
	if err != nil {
		return hitl.QuestionPage{}, classify("read queue", err)
	}
	defer rows.Close()
	page := hitl.QuestionPage{Questions: []*hitl.Question{}}
	var lastAt int64
	for rows.Next() {
		var at int64
		var data []byte
		if err := rows.Scan(&at, &data); err != nil {
			return hitl.QuestionPage{}, classify("read queue", err)
		}
		if len(page.Questions) == size {
			page.More = true
			if f.ByDeadline {
				page.NextCursor = encodeCursor(lastAt, page.Questions[size-1].ID)
			}
			break
		}
		q, err := decodeQuestion(data)
		if err != nil {
			return hitl.QuestionPage{}, err
		}
		page.Questions = append(page.Questions, q)
		lastAt = at
	}
	if err := rows.Err(); err != nil {
		return hitl.QuestionPage{}, classify("read queue", err)
	}
	return page, nil
}

// listQuery is the query of a question list that is not a queue: the
// conditions of f, in the order of the index f names (the bbolt store's
// indexFor), from the cursor. The cursor's row comparison starts with the
// index's equality columns, so it is a condition on that index alone.
func listQuery(f hitl.QuestionFilter) (string, []any, error) {
	var w where
	w.filter(f)
	from, col, id := "questions q", "q.created_ns", "q.id"
	var prefix []string // the index's leading columns, fixed by f
	var fixed []any
	switch {
	case f.ByDeadline && f.Assignee != "":
		from = "questions q JOIN assignees a ON a.question_id = q.id AND a.assignee = $1"
		w = where{args: []any{f.Assignee}}
		w.filter(hitl.QuestionFilter{RunID: f.RunID, Asker: f.Asker, Status: f.Status, Type: f.Type, Unassigned: f.Unassigned, RespondedBy: f.RespondedBy,
			NotAskedBy: f.NotAskedBy}) // assignees holds pending questions only
		col, id = "a.due_ns", "a.question_id"
		prefix, fixed = []string{"a.assignee"}, []any{f.Assignee}
	case f.ByDeadline && !f.Unassigned && f.RunID != "":
		col = dueCol
		prefix, fixed = []string{"q.job_id"}, []any{f.RunID}
	case f.ByDeadline && !f.Unassigned && f.Type != "":
		col = dueCol
		prefix, fixed = []string{"q.type"}, []any{string(f.Type)}
	case f.ByDeadline:
		col = dueCol // the pending or the unassigned list (w holds q.unassigned)
	case f.RunID != "":
		prefix, fixed = []string{"q.job_id"}, []any{f.RunID}
	case f.Assignee != "":
		from = "questions q JOIN assignees a ON a.question_id = q.id AND a.assignee = $1"
		w = where{args: []any{f.Assignee}}
		w.filter(hitl.QuestionFilter{Asker: f.Asker, Status: f.Status, Type: f.Type, Unassigned: f.Unassigned, RespondedBy: f.RespondedBy, NotAskedBy: f.NotAskedBy})
		col, id = "a.created_ns", "a.question_id"
		prefix, fixed = []string{"a.assignee"}, []any{f.Assignee}
	case f.Unassigned:
	case f.RespondedBy != "":
		col = "q.responded_ns"
		prefix, fixed = []string{"q.responded_by"}, []any{f.RespondedBy}
	case f.Asker != "" && f.Status != "":
		prefix, fixed = []string{"q.asker", "q.status"}, []any{f.Asker, string(f.Status)}
	case f.Asker != "":
		prefix, fixed = []string{"q.asker"}, []any{f.Asker}
	case f.Type != "" && f.Status != "":
		prefix, fixed = []string{"q.type", "q.status"}, []any{string(f.Type), string(f.Status)}
	case f.Type != "":
		prefix, fixed = []string{"q.type"}, []any{string(f.Type)}
	case f.Status != "":
		prefix, fixed = []string{"q.status"}, []any{string(f.Status)}
	}
	order := append(slices.Clone(prefix), col, id)
	if f.Cursor != "" {
		at, last, err := decodeCursor(f.Cursor)
		if err != nil {
			return "", nil, err
		}
		op := ">"
		if f.Reverse {
			op = "<"
		}
		marks := strings.TrimSuffix(strings.Repeat("?, ", len(order)), ", ")
		w.add("("+strings.Join(order, ", ")+") "+op+" ("+marks+")", append(fixed, at, last)...)
	}
	if f.Reverse {
		for i := range order {
			order[i] += " DESC"
		}
	}
	w.args = append(w.args, f.PageSize()+1)
	sql := fmt.Sprintf(`SELECT %s, q.data FROM %s WHERE %s ORDER BY %s LIMIT $%d`, col, from, w.sql(), strings.Join(order, ", "), len(w.args))
	return sql, w.args, nil
}
