package hitl

import (
	"context"
	"time"
)

// QuestionFilter selects questions. Zero fields match everything.
type QuestionFilter struct {
	JobID  string
	Asker  string // only questions this principal asked
	Status Status
	Type   QuestionType
	Limit  int // 0: no limit
}

// Match reports whether q passes the filter (Limit aside).
func (f QuestionFilter) Match(q *Question) bool {
	return (f.JobID == "" || q.JobID == f.JobID) &&
		(f.Asker == "" || q.Asker == f.Asker) &&
		(f.Status == "" || q.Status == f.Status) &&
		(f.Type == "" || q.Type == f.Type)
}

// Store persists questions and the event log. Every method that returns
// without error has made its writes durable (fsync'd). Implementations must
// be safe for concurrent use.
type Store interface {
	// CreateQuestion stores q with its indexes and ev (whose Seq it sets),
	// atomically. When q.IdempotencyKey is set and the same job already has a
	// question with that key whose outcome was not received yet, nothing is
	// written and the existing question is returned with created false.
	CreateQuestion(ctx context.Context, q *Question, ev *Event) (stored *Question, created bool, err error)

	// UpdateQuestion loads question id, calls fn on it and stores the result
	// and the event fn returns (none when nil), atomically. fn may be called
	// more than once and must depend only on its argument. If fn returns an
	// error nothing is written and that error is returned. Returns ENOTFOUND
	// for an unknown id.
	UpdateQuestion(ctx context.Context, id string, fn func(q *Question) (*Event, error)) (*Question, error)

	// Question returns question id, or ENOTFOUND.
	Question(ctx context.Context, id string) (*Question, error)

	// QuestionByKey returns the question of job jobID holding idempotency
	// key key (one whose outcome was not received yet), or ENOTFOUND. It
	// only reads.
	QuestionByKey(ctx context.Context, jobID, key string) (*Question, error)

	// SealedQuestions returns the ids of questions holding a sealed
	// (sensitive, not yet received) answer. Its cost grows with the number
	// returned.
	SealedQuestions(ctx context.Context) ([]string, error)

	// AppendEvent appends ev (setting its Seq) on its own: audit entries
	// that change no question (refusals).
	AppendEvent(ctx context.Context, ev *Event) error

	// Questions returns the questions matching f, oldest first.
	Questions(ctx context.Context, f QuestionFilter) ([]*Question, error)

	// DueQuestions returns up to limit ids of pending questions whose
	// timeoutAt is at or before now, earliest first. Its cost grows with the
	// number returned, not with the number pending.
	DueQuestions(ctx context.Context, now time.Time, limit int) ([]string, error)

	// Events returns up to limit events with Seq > after, in order.
	Events(ctx context.Context, after uint64, limit int) ([]*Event, error)
}
