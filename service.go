package hitl

import (
	"context"
	"time"
)

// QuestionService is the question lifecycle as the edges see it. *Service
// implements it over the store; agent.Client implements it over HTTP. The
// acting identity travels in the context (WithActor).
//
// Errors: EINVALID for bad input, ENOTFOUND for unknown ids, ECONFLICT when
// a question is no longer pending (the *Error names who settled it and
// when), EFORBIDDEN when the actor may not do this, EUNAVAILABLE when the
// service cannot be reached.
type QuestionService interface {
	// Create asks a question for job jobID and returns at once (the agent
	// SDK's Ask also waits). With an idempotency key already
	// used by the job it returns the existing question and created false.
	Create(ctx context.Context, jobID string, n NewQuestion) (q *Question, created bool, err error)
	// Question returns a question; a sensitive answer is redacted.
	Question(ctx context.Context, id string) (*Question, error)
	// Wait blocks until the question is settled or ctx is done, and returns
	// it (redacted). On ctx's end it returns the pending question and ctx.Err().
	Wait(ctx context.Context, id string) (*Question, error)
	// Answer records the first valid answer.
	Answer(ctx context.Context, id string, r Response) (*Question, error)
	// Cancel cancels a pending question.
	Cancel(ctx context.Context, id, reason string) (*Question, error)
	// Questions lists questions, oldest first, redacted.
	Questions(ctx context.Context, f QuestionFilter) ([]*Question, error)
	// Receive hands the asking agent a settled question with its sensitive
	// answer, once, and scrubs the answer from the store.
	Receive(ctx context.Context, id string) (*Question, error)
	// RunState derives a run's phase, pending question and history.
	RunState(ctx context.Context, jobID string) (*RunState, error)
}

// Service is the question lifecycle over a Store: create, answer, time out,
// cancel, and wake the waiting agent. It is written once and used by every
// edge.
type Service struct {
	store    Store
	clock    Clock
	timeouts Timeouts
	newID    func() string
	hub      *hub
}

var _ QuestionService = (*Service)(nil)

// ServiceConfig configures a Service. Zero fields take defaults.
type ServiceConfig struct {
	Clock    Clock
	Timeouts Timeouts
	NewID    func() string
}

// NewService returns the lifecycle over store.
func NewService(store Store, cfg ServiceConfig) *Service {
	if cfg.Clock == nil {
		cfg.Clock = SystemClock{}
	}
	if cfg.Timeouts == (Timeouts{}) {
		cfg.Timeouts = DefaultTimeouts()
	}
	if cfg.NewID == nil {
		cfg.NewID = func() string { return NewID("q_") }
	}
	return &Service{store: store, clock: cfg.Clock, timeouts: cfg.Timeouts, newID: cfg.NewID, hub: newHub()}
}

// Create implements QuestionService.
func (s *Service) Create(ctx context.Context, jobID string, n NewQuestion) (*Question, bool, error) {
	now := s.clock.Now()
	actor := ActorFrom(ctx)
	q, err := n.Build(s.newID(), jobID, actor, now, s.timeouts)
	if err != nil {
		return nil, false, err
	}
	stored, created, err := s.store.CreateQuestion(ctx, q, newQuestionEvent(EventQuestionAsked, q, actor, now))
	if err != nil {
		return nil, false, err
	}
	if created {
		s.hub.publish(stored.ID)
	}
	return stored.Redacted(), created, nil
}

// Question implements QuestionService.
func (s *Service) Question(ctx context.Context, id string) (*Question, error) {
	q, err := s.store.Question(ctx, id)
	if err != nil {
		return nil, err
	}
	return q.Redacted(), nil
}

// Wait implements QuestionService.
func (s *Service) Wait(ctx context.Context, id string) (*Question, error) {
	for {
		ch := s.hub.watch(id)
		q, err := s.store.Question(ctx, id)
		if err != nil {
			s.hub.unwatch(id, ch)
			return nil, err
		}
		if !q.Pending() {
			s.hub.unwatch(id, ch)
			return q.Redacted(), nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			s.hub.unwatch(id, ch)
			return q.Redacted(), ctx.Err()
		}
	}
}

// Answer implements QuestionService.
func (s *Service) Answer(ctx context.Context, id string, r Response) (*Question, error) {
	actor := ActorFrom(ctx)
	return s.settle(ctx, id, func(q *Question, now time.Time) (*Event, error) {
		norm, err := q.ValidateResponse(r)
		if err != nil {
			return nil, err
		}
		q.Status, q.Response, q.RespondedBy, q.RespondedAt = StatusAnswered, &norm, actor, &now
		return newQuestionEvent(EventQuestionAnswered, q, actor, now), nil
	})
}

// Cancel implements QuestionService.
func (s *Service) Cancel(ctx context.Context, id, reason string) (*Question, error) {
	actor := ActorFrom(ctx)
	if len(reason) > MaxAnswerLen {
		return nil, Errorf(EINVALID, "reason is longer than %d characters", MaxAnswerLen)
	}
	return s.settle(ctx, id, func(q *Question, now time.Time) (*Event, error) {
		q.Status, q.RespondedBy, q.RespondedAt, q.CancelReason = StatusCancelled, actor, &now, reason
		return newQuestionEvent(EventQuestionCancelled, q, actor, now), nil
	})
}

// expire times out question id if it is still pending and due at now. The
// default response, if any, becomes its answer.
func (s *Service) expire(ctx context.Context, id string, now time.Time) (*Question, error) {
	return s.settle(ctx, id, func(q *Question, _ time.Time) (*Event, error) {
		if q.TimeoutAt == nil || q.TimeoutAt.After(now) {
			return nil, Errorf(ECONFLICT, "question %s is not due", q.ID)
		}
		q.Status, q.Response, q.RespondedBy, q.RespondedAt = StatusTimeout, q.DefaultResponse.clone(), ActorSystem, &now
		return newQuestionEvent(EventQuestionTimeout, q, ActorSystem, now), nil
	})
}

// settle applies a transition out of pending. A question that is no longer
// pending gets a conflict naming who settled it and when.
func (s *Service) settle(ctx context.Context, id string, fn func(q *Question, now time.Time) (*Event, error)) (*Question, error) {
	now := s.clock.Now()
	q, err := s.store.UpdateQuestion(ctx, id, func(q *Question) (*Event, error) {
		if !q.Pending() {
			return nil, Conflict(q)
		}
		return fn(q, now)
	})
	if err != nil {
		return nil, err
	}
	s.hub.publish(id)
	return q.Redacted(), nil
}

// Conflict is the error for acting on a question that is no longer pending:
// it names who settled it and when.
func Conflict(q *Question) *Error {
	at := ""
	if q.RespondedAt != nil {
		at = q.RespondedAt.UTC().Format(time.RFC3339)
	}
	e := &Error{Code: ECONFLICT, Status: q.Status, By: q.RespondedBy, At: at}
	switch q.Status {
	case StatusAnswered:
		e.Message = "question " + q.ID + " was already answered by " + q.RespondedBy + " at " + at
	case StatusTimeout:
		e.Message = "question " + q.ID + " timed out at " + at
	case StatusCancelled:
		e.Message = "question " + q.ID + " was cancelled by " + q.RespondedBy + " at " + at
	default:
		e.Message = "question " + q.ID + " is " + string(q.Status)
	}
	return e
}

// SweepExpired times out every pending question that is due now and returns
// how many it settled. It reads only the due part of the deadline index.
func (s *Service) SweepExpired(ctx context.Context) (int, error) {
	const batch = 256
	now := s.clock.Now()
	n := 0
	for {
		ids, err := s.store.DueQuestions(ctx, now, batch)
		if err != nil {
			return n, err
		}
		for _, id := range ids {
			_, err := s.expire(ctx, id, now)
			switch ErrorCode(err) {
			case "":
				n++
			case ECONFLICT, ENOTFOUND: // answered meanwhile
			default:
				return n, err
			}
		}
		if len(ids) < batch {
			return n, nil
		}
	}
}

// Questions implements QuestionService.
func (s *Service) Questions(ctx context.Context, f QuestionFilter) ([]*Question, error) {
	qs, err := s.store.Questions(ctx, f)
	if err != nil {
		return nil, err
	}
	for i, q := range qs {
		qs[i] = q.Redacted()
	}
	return qs, nil
}

// Receive implements QuestionService.
func (s *Service) Receive(ctx context.Context, id string) (*Question, error) {
	q, err := s.store.Question(ctx, id)
	if err != nil {
		return nil, err
	}
	if !q.Sensitive || q.Response == nil {
		return q.Redacted(), nil
	}
	if actor := ActorFrom(ctx); q.Asker != "" && actor != q.Asker {
		return nil, Errorf(EFORBIDDEN, "only %s, which asked, may receive the sensitive answer to %s", q.Asker, id)
	}
	var got *Question
	_, err = s.store.UpdateQuestion(ctx, id, func(q *Question) (*Event, error) {
		if q.Response == nil || q.Response.Redacted {
			return nil, Errorf(ECONFLICT, "the sensitive answer to %s was already received and scrubbed", id)
		}
		got = q.Clone()
		q.Response = q.Response.redacted()
		return nil, nil
	})
	if err != nil {
		return nil, err
	}
	return got, nil
}

// RunState implements QuestionService.
func (s *Service) RunState(ctx context.Context, jobID string) (*RunState, error) {
	if err := ValidateJobID(jobID); err != nil {
		return nil, err
	}
	qs, err := s.store.Questions(ctx, QuestionFilter{JobID: jobID})
	if err != nil {
		return nil, err
	}
	if len(qs) == 0 {
		return nil, Errorf(ENOTFOUND, "run %s has no questions", jobID)
	}
	return NewRunState(jobID, qs), nil
}

// Events returns up to limit events after seq from the durable log.
func (s *Service) Events(ctx context.Context, after uint64, limit int) ([]*Event, error) {
	return s.store.Events(ctx, after, limit)
}

// Changed returns a channel closed at the next committed change. Readers of
// the event log wait on it instead of polling.
func (s *Service) Changed() <-chan struct{} { return s.hub.next() }
