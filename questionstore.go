package hitl

import (
	"context"
	"slices"
	"time"
)

// Page sizes of question lists.
const (
	DefaultPageSize = 100
	MaxPageSize     = 1000
)

// QuestionFilter selects a page of questions. Zero fields match
// everything. The store reads the page from the most selective index the
// filter names (run, assignee, responder, asker × status, asker,
// type × status, type, status, else creation time), in that index's
// order, and checks the other fields on each question it reads. A page is
// never empty while the list holds a match after its cursor.
type QuestionFilter struct {
	RunID  string
	Asker  string // only questions this principal asked
	Status Status
	Type   QuestionType
	// Assignee selects pending questions listed for this Slack user or
	// user-group id (Question.Listed: assigned, or added by escalation);
	// Unassigned pending questions with no assignee (Question.Unassigned).
	Assignee   string
	Unassigned bool
	// Queue selects a person's queue: pending questions listed for any
	// of these ids (a user and their groups), plus the unassigned ones
	// when Unassigned is set. It is read by merging the indexes on their
	// keys, so only the questions returned are decoded; it returns the
	// first page only (More says there are more).
	Queue []string
	// NotAskedBy leaves out the questions Slack user NotAskedBy asked
	// (through a token speaking for them): nobody's queue holds their own.
	NotAskedBy string
	// RespondedBy selects questions answered by this principal, in the
	// order of their answers.
	RespondedBy string
	// Reverse reads the index backwards: newest first.
	Reverse bool
	// ByDeadline lists pending questions only, soonest deadline first
	// (latest first with Reverse), those that never time out last, ties
	// by id: the pending list, an Assignee's, the Unassigned list, a
	// run's (RunID), a Type's and a Queue are read from indexes in that
	// order (the other fields are checked on each question read). A Queue read by deadline takes a
	// Cursor and returns NextCursor, like every other list.
	ByDeadline bool
	// Limit is the page size: 0 means DefaultPageSize; at most MaxPageSize.
	Limit int
	// Cursor continues after the page that returned it as NextCursor.
	Cursor string
}

// PageSize returns the page size f asks for, bounded.
func (f QuestionFilter) PageSize() int {
	switch {
	case f.Limit <= 0:
		return DefaultPageSize
	case f.Limit > MaxPageSize:
		return MaxPageSize
	}
	return f.Limit
}

// Match reports whether q passes the filter (paging aside).
func (f QuestionFilter) Match(q *Question) bool {
	return (f.RunID == "" || q.RunID == f.RunID) &&
		(f.Asker == "" || q.Asker == f.Asker) &&
		(f.Status == "" || q.Status == f.Status) &&
		(f.Type == "" || q.Type == f.Type) &&
		(f.Assignee == "" || (q.Pending() && slices.Contains(q.Listed(), f.Assignee))) &&
		(len(f.Queue) > 0 || !f.Unassigned || (q.Pending() && q.Unassigned())) &&
		(len(f.Queue) == 0 || (q.Pending() && (slices.ContainsFunc(q.Listed(), func(a string) bool { return slices.Contains(f.Queue, a) }) ||
			(f.Unassigned && q.Unassigned())))) &&
		(f.RespondedBy == "" || (q.Status == StatusAnswered && q.RespondedBy == f.RespondedBy)) &&
		(!f.ByDeadline || q.Pending()) &&
		(f.NotAskedBy == "" || (q.AskerUser != f.NotAskedBy && q.Asker != "slack:"+f.NotAskedBy))
}

// QuestionPage is one page of a list. NextCursor is set when there may be
// more.
type QuestionPage struct {
	Questions  []*Question `json:"questions"`
	NextCursor string      `json:"nextCursor,omitempty"`
	// Total is how many questions the whole list holds, when it is known
	// without reading it (a list by status alone).
	Total int `json:"total,omitempty"`
	// More says a Queue list holds more than the page.
	More bool `json:"more,omitempty"`
}

// QuestionStore keeps questions and their indexes: the idempotency keys,
// the lists (QuestionFilter), the deadlines, and the counts the stats read.
// A question is written with its run's record and its event in one commit
// (CreateQuestion, UpdateQuestion), so the run and the event log never
// disagree with it.
type QuestionStore interface {
	// CreateQuestion stores q with its indexes and ev (whose Seq it sets),
	// atomically. When q.IdempotencyKey is set and the same run already has a
	// question with that key whose outcome was not received yet, nothing is
	// written and the existing question is returned with created false.
	// Otherwise admit, when not nil, is called in the same transaction
	// with q's run record as it is then (nil: none yet; not to be kept or
	// changed): its error writes nothing and is returned as is. The root
	// decides there who may start or add to the run, so that of two
	// principals starting one run at once, one owns it.
	CreateQuestion(ctx context.Context, q *Question, ev *Event, admit func(run *Run) error) (stored *Question, created bool, err error)

	// UpdateQuestion loads question id, calls fn on it and stores the result
	// and the event fn returns (none when nil), atomically. fn may be called
	// more than once and must depend only on its argument. If fn returns an
	// error nothing is written and that error is returned. Returns ENOTFOUND
	// for an unknown id.
	UpdateQuestion(ctx context.Context, id string, fn func(q *Question) (*Event, error)) (*Question, error)

	// UpdateQuestions is UpdateQuestion for many questions in one
	// transaction (one commit): fn's error skips that question only (it is
	// reported in errs, by index), and unknown ids report ENOTFOUND there.
	// The sweeper times out a batch of due questions this way.
	UpdateQuestions(ctx context.Context, ids []string, fn func(q *Question) (*Event, error)) (updated []*Question, errs []error, err error)

	// Question returns question id, or ENOTFOUND.
	Question(ctx context.Context, id string) (*Question, error)

	// QuestionByKey returns the question of run runID holding idempotency
	// key key (one whose outcome was not received yet), or ENOTFOUND. Keys
	// are held per asker: key is KeyOf(asker, idempotency key), and
	// CreateQuestion holds a question's under KeyOf(q.Asker,
	// q.IdempotencyKey). It only reads.
	QuestionByKey(ctx context.Context, runID, key string) (*Question, error)

	// Questions returns a page of the questions matching f (see
	// QuestionFilter for the order). Its cost grows with the page, not
	// with the number of questions stored.
	Questions(ctx context.Context, f QuestionFilter) (QuestionPage, error)

	// CountQuestions returns how many questions have status status.
	CountQuestions(ctx context.Context, status Status) (int, error)

	// SealedQuestions returns the ids of questions holding a sealed
	// (sensitive, not yet received) answer. Its cost grows with the number
	// returned.
	SealedQuestions(ctx context.Context) ([]string, error)

	// DueQuestions returns up to limit ids of pending questions whose
	// timeoutAt is at or before now, earliest first. Its cost grows with the
	// number returned, not with the number pending.
	DueQuestions(ctx context.Context, now time.Time, limit int) ([]string, error)

	// PendingByType counts the pending questions of each type (types
	// with none are left out) and returns the Seq of the last event, as
	// of one moment: a reader that keeps the counts current from the log
	// reads on from seq. Its cost grows with the number pending (an index
	// walk), not with the number stored.
	PendingByType(ctx context.Context) (counts map[QuestionType]int, seq uint64, err error)

	// SettledQuestions returns a page of the questions settled at or
	// after since, in the order they were settled (then by id), read by
	// the settle-time index: its cost grows with the page. Follow
	// NextCursor for the next page.
	SettledQuestions(ctx context.Context, since time.Time, limit int, cursor string) (QuestionPage, error)
}
