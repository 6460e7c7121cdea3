package hitl

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// QuestionService is the question lifecycle as the edges see it. *Service
// implements it over the store; agent.Client implements it over HTTP. The
// acting principal travels in the context (WithPrincipal), and every
// method applies Access's rules to it.
//
// Errors: EINVALID for bad input, ENOTFOUND for unknown ids, ECONFLICT when
// a question is no longer pending (the *Error names who settled it and
// when), EFORBIDDEN when the principal may not do this (the message names
// the rule), ERATELIMITED when it asks too fast, EUNAVAILABLE when the
// service cannot be reached.
type QuestionService interface {
	// Create asks a question for run runID and returns at once (the agent
	// SDK's Ask also waits). With an idempotency key the run already uses
	// for a question whose outcome was not received, it returns that
	// question and created false; a different question under the same key
	// is a conflict.
	Create(ctx context.Context, runID string, n NewQuestion) (q *Question, created bool, err error)
	// Question returns a question; a sensitive answer is redacted.
	Question(ctx context.Context, id string) (*Question, error)
	// Wait blocks until the question is settled or ctx is done, and returns
	// it (redacted). On ctx's end it returns the pending question and ctx.Err().
	Wait(ctx context.Context, id string) (*Question, error)
	// Answer records the first valid answer.
	Answer(ctx context.Context, id string, r Response) (*Question, error)
	// Cancel cancels a pending question.
	Cancel(ctx context.Context, id, reason string) (*Question, error)
	// QuestionPage returns a page of the questions matching f, redacted:
	// all of them for principals that answer, otherwise only their own.
	// Follow NextCursor for the next page.
	QuestionPage(ctx context.Context, f QuestionFilter) (QuestionPage, error)
	// Receive is how the asker takes a settled question's outcome: a
	// sensitive answer is handed over once and scrubbed, and the
	// idempotency key is freed. A pending question is returned as it is.
	Receive(ctx context.Context, id string) (*Question, error)
	// RunState is the view of a run in docs/protocol.md#run-state-and-the-interaction-threshold: phase, pending question and
	// recent history.
	RunState(ctx context.Context, runID string) (*RunState, error)
	// RunRecord returns a run's record: counts, the question it waits on,
	// its control state. It costs one read, however many questions it holds.
	RunRecord(ctx context.Context, id string) (*Run, error)
	ReassignService // reassign.go
}

// Service is the question lifecycle over a Store: create, answer, time out,
// cancel, and wake the waiting agent. It is written once and used by every
// edge, and it is where the trust rules are enforced.
type Service struct {
	store    Store
	clock    Clock
	timeouts Timeouts
	access   Access
	limiter  Limiter
	newID    func() string
	notifier Notifier
	sealer   Sealer
	// threshold is the default interaction threshold (nil: none).
	threshold *int
	// started is when this service began serving control requests: one
	// still in flight from before was cut off by a restart and may be
	// retried. It is taken at the first request, so that starting the
	// service reads no clock.
	started     time.Time
	startedOnce sync.Once
	policy      policyHolder
	// parse parses shell command lines for the policy; learnedTTL is how
	// long a learned rule holds.
	parse      CommandParser
	learnedTTL time.Duration
	// limits are the per-principal rate limits beside creation's;
	// streams bounds each principal's concurrent streams; refusals
	// aggregates the audit of refusals (flood.go).
	limits   map[Limit]Limiter
	streams  streams
	refusals refusals
	dir      directory
	// reminders are the reminder settings by question type.
	reminders Reminders
	// sessions are the idle and end times of silent sessions; the
	// session sweep reads runs no sooner than nextSessionSweep.
	sessions         SessionTimes
	sessionSweep     sync.Mutex
	nextSessionSweep time.Time
	// failures are the recent failed creations; alerts, when configured,
	// are the alerts stats shows (alerts.go).
	failures failureLog
	alerts   atomic.Pointer[Alerts]
	// webhooks route events to webhook receivers; callbacks is where a
	// question's callbackUrl may point.
	webhooks  *WebhookRoutes
	callbacks CallbackPolicy
	window    StatsWindow // the stats of every run from rollups (nil: from the questions; stats.go)
	pinger    atomic.Pointer[func(ctx context.Context, name string) (int, error)]
}

var _ QuestionService = (*Service)(nil)

// ServiceConfig configures a Service. Zero fields take defaults, except
// Notifier.
type ServiceConfig struct {
	// Notifier wakes waiters after each change (required: notify.New() in
	// one process; a backend shared by several processes supplies its own).
	Notifier Notifier
	Clock    Clock
	Timeouts Timeouts
	NewID    func() string
	// Access is who may answer and administer (default: anyone with the
	// answer scope, no Slack admins).
	Access Access
	// Limiter throttles creation (default: none).
	Limiter Limiter
	// Threshold is the interaction threshold of runs without their own
	// (docs/protocol.md#run-state-and-the-interaction-threshold); nil: none, questions are never refused.
	Threshold *int
	// ParseCommand parses shell command lines for the approval policy
	// (shell.Parse); nil: every shell operation asks a person.
	ParseCommand CommandParser
	// LearnedTTL is how long a learned rule holds (default
	// DefaultLearnedTTL).
	LearnedTTL time.Duration
	// Limits are per-principal rate limits of control requests, run
	// reports and policy calls (default: none).
	Limits map[Limit]Limiter
	// MaxStreams bounds each principal's concurrent streams and long
	// polls (0: no bound; config's default is DefaultMaxStreams).
	MaxStreams int
	// Reminders are the reminders and escalation of each question type
	// (policy rules may override them); none by default.
	Reminders Reminders
	// Sessions is when a silent coding-agent session is shown idle and
	// ended (default: never).
	Sessions SessionTimes
	// Sealer seals sensitive answers (seal.New, or seal.WithKey from the
	// key file CheckSealKey asks for); nil: they are kept in this
	// process's memory, never in the store, and lost at restart.
	Sealer Sealer
	// Webhooks are the configured webhook endpoints (nil: none);
	// Callbacks is where a question's callbackUrl may point (zero:
	// nowhere).
	Webhooks  *WebhookRoutes
	Callbacks CallbackPolicy
	// StatsWindow computes the stats of every run from the store's
	// rollups (observe.New); nil: Stats reads the window's questions.
	StatsWindow StatsWindow
}

// NewService returns the lifecycle over store.
func NewService(store Store, cfg ServiceConfig) *Service {
	if cfg.Notifier == nil {
		panic("hitl: NewService without a Notifier")
	}
	if cfg.Clock == nil {
		cfg.Clock = SystemClock{}
	}
	if cfg.Timeouts == (Timeouts{}) {
		cfg.Timeouts = DefaultTimeouts()
	}
	if cfg.NewID == nil {
		cfg.NewID = func() string { return NewID("q_") }
	}
	if cfg.LearnedTTL <= 0 {
		cfg.LearnedTTL = DefaultLearnedTTL
	}
	if cfg.Sealer == nil {
		cfg.Sealer = newMemorySealer()
	}
	return &Service{store: store, clock: cfg.Clock, timeouts: cfg.Timeouts, access: cfg.Access, limiter: cfg.Limiter,
		newID: cfg.NewID, notifier: cfg.Notifier, sealer: cfg.Sealer, threshold: cfg.Threshold,
		parse: cfg.ParseCommand, learnedTTL: cfg.LearnedTTL, limits: cfg.Limits, streams: streams{max: cfg.MaxStreams},
		reminders: cfg.Reminders,
		sessions:  cfg.Sessions, webhooks: cfg.Webhooks, callbacks: cfg.Callbacks, window: cfg.StatsWindow}
}

// Access returns the rules the service enforces, for edges that must build
// principals (Slack users) or show a person's queue.
func (s *Service) Access() Access { return s.access }

// Create implements QuestionService.
func (s *Service) Create(ctx context.Context, runID string, n NewQuestion) (*Question, bool, error) {
	q, created, err := s.create(ctx, runID, n, nil)
	s.failures.note(err, s.clock)
	return q, created, err
}

// create is Create with a last touch on the built question (an approval
// the policy asked for gets its operation, approvers and quorum).
func (s *Service) create(ctx context.Context, runID string, n NewQuestion, touch func(*Question)) (*Question, bool, error) {
	p := PrincipalFrom(ctx)
	if err := s.access.Authorize(p, ActionAsk, nil); err != nil {
		return nil, false, s.refused(ctx, p, ActionAsk, &Question{RunID: runID}, err)
	}
	if err := s.callbacks.Check(n.CallbackURL); err != nil {
		return nil, false, err
	}
	now := s.clock.Now()
	q, err := n.Build(s.newID(), runID, p.ID, now, s.timeouts)
	if err != nil {
		return nil, false, err
	}
	q.AskerUser = p.SlackUser
	if touch != nil {
		touch(q)
	}
	s.plan(q, s.policy.rule(q.Rule))
	if q.Type == Approval && q.DefaultResponse.Approved() && !s.access.AllowDefaultApprove {
		return nil, false, Errorf(EINVALID, "defaultResponse: an approval cannot approve itself when nobody answers; use deny, leave it out, or set allow_default_approve in config")
	}
	run, err := s.store.Run(ctx, runID)
	if err != nil && ErrorCode(err) != ENOTFOUND {
		return nil, false, err
	}
	if err := s.access.AuthorizeRun(p, ActionReport, runID, run); err != nil {
		return nil, false, s.refused(ctx, p, ActionAsk, &Question{RunID: runID}, err)
	}
	if err := s.refuseByThreshold(runID, run, q); err != nil {
		return nil, false, err
	}
	if q.IdempotencyKey != "" {
		existing, err := s.store.QuestionByKey(ctx, runID, KeyOf(p.ID, q.IdempotencyKey))
		switch ErrorCode(err) {
		case "":
			if err := sameRequest(existing, q); err != nil {
				return nil, false, err
			}
			return existing.Redacted(), false, nil
		case ENOTFOUND:
		default:
			return nil, false, err
		}
	}
	if s.limiter != nil {
		if d := s.limiter.Allow(p.ID, runID); d > 0 {
			return nil, false, s.refused(ctx, p, ActionAsk, &Question{RunID: runID}, rateLimited(p, runID, d))
		}
	}
	if run == nil || run.Asker == "" {
		// Starting a run is charged to p's LimitRuns.
		if err := s.Throttle(ctx, LimitRuns); err != nil {
			return nil, false, err
		}
	}
	// Who may add to the run is decided again in the question's own
	// transaction, on the run as it is there: of two principals starting
	// one run at once, the first owns it (the question makes it its
	// asker's) and the other is refused, with no commit of its own.
	var refusal error
	admit := func(run *Run) error {
		refusal = s.access.AuthorizeRun(p, ActionReport, runID, run)
		return refusal
	}
	stored, created, err := s.store.CreateQuestion(ctx, q, newQuestionEvent(EventQuestionAsked, q, p.ID, now), admit)
	if refusal != nil && err == refusal {
		return nil, false, s.refused(ctx, p, ActionAsk, &Question{RunID: runID}, refusal)
	}
	if err != nil {
		return nil, false, err
	}
	if !created {
		if err := sameRequest(stored, q); err != nil {
			return nil, false, err
		}
	} else {
		s.notifier.Publish(stored.ID)
		s.notifier.Publish(runKey(runID))
	}
	return stored.Redacted(), created, nil
}

// sameRequest checks that a retry under an idempotency key is the same
// request, from the same asker, as the question holding the key.
func sameRequest(existing, q *Question) error {
	if existing.Asker != q.Asker && !(isLocal(existing.Asker) && isLocal(q.Asker)) {
		return Errorf(ECONFLICT, "idempotency key %q of run %s is held by another asker's question; use another key", q.IdempotencyKey, q.RunID)
	}
	if existing.RequestHash != "" && existing.RequestHash != q.RequestHash {
		return Errorf(ECONFLICT, "idempotency key %q of run %s is already used by question %s, which asks something else; use another key (or receive that question's outcome first)", q.IdempotencyKey, q.RunID, existing.ID)
	}
	return nil
}

// authorized loads question id and applies the rule for act to the
// principal in ctx; a refusal is audited.
func (s *Service) authorized(ctx context.Context, act Action, id string) (*Question, error) {
	q, err := s.store.Question(ctx, id)
	if err != nil {
		return nil, err
	}
	p := PrincipalFrom(ctx)
	if err := s.access.Authorize(p, act, q); err != nil {
		return nil, s.refused(ctx, p, act, q, err)
	}
	return q, nil
}

// Question implements QuestionService.
func (s *Service) Question(ctx context.Context, id string) (*Question, error) {
	q, err := s.authorized(ctx, ActionRead, id)
	if err != nil {
		return nil, err
	}
	return q.Redacted(), nil
}

// Wait implements QuestionService.
func (s *Service) Wait(ctx context.Context, id string) (*Question, error) {
	if _, err := s.authorized(ctx, ActionRead, id); err != nil {
		return nil, err
	}
	for {
		ch, cancel := s.notifier.Watch(id) // before the read: a change after it wakes us
		q, err := s.store.Question(ctx, id)
		if err != nil {
			cancel()
			return nil, err
		}
		if !q.Pending() {
			cancel()
			return q.Redacted(), nil
		}
		select {
		case <-ch:
			cancel()
		case <-ctx.Done():
			cancel()
			return q.Redacted(), ctx.Err()
		}
	}
}

// Answer implements QuestionService. The rule is checked in the same
// transaction as the write, against the question as it is then. An
// approval that needs several approvals (Quorum) counts each distinct
// person's approve and settles at the last one; a single deny denies and
// a single reply settles it unapproved (a reply is never a vote).
func (s *Service) Answer(ctx context.Context, id string, r Response) (*Question, error) {
	p := PrincipalFrom(ctx)
	var learn *LearnedRuleKey
	rules := s.policy.rules() // read before the store's transaction: never inside it
	q, err := s.settleOrCount(ctx, ActionAnswer, id, func(q *Question, now time.Time) (*Event, bool, error) {
		learn = nil
		norm, err := q.ValidateResponse(r)
		if err != nil {
			return nil, false, err
		}
		if err := q.checkEdit(&norm); err != nil {
			return nil, false, err
		}
		if q.Sensitive {
			if norm, err = seal(s.sealer, q.ID, norm); err != nil {
				return nil, false, err
			}
		}
		if norm.Always && norm.Approved() {
			// Refused before anything is written: a learned rule only
			// ever replaces an approver-less, quorum-1 ask, exactly.
			key, err := s.learnable(q, rules)
			if err != nil {
				return nil, false, err
			}
			learn = &key
		}
		if norm.Approved() && q.NeedsSeveral() {
			if q.ApprovedBy(p) {
				return nil, false, Errorf(EINVALID, "%s already approved %s: %s; another person must approve", p.ID, q.ID, q.Tally())
			}
			q.Approvals = append(q.Approvals, Grant{By: p.ID, User: p.SlackUser, At: now, Text: norm.Text})
			if !q.QuorumMet() {
				return newQuestionEvent(EventApprovalAdded, q, p.ID, now), false, nil
			}
		}
		q.Status, q.Response, q.RespondedBy, q.RespondedAt, q.Notice = StatusAnswered, &norm, p.ID, &now, ""
		return newQuestionEvent(EventQuestionAnswered, q, p.ID, now), true, nil
	})
	if err == nil && learn != nil {
		if lerr := s.learn(ctx, q, *learn, p.ID); lerr != nil {
			return q, lerr
		}
	}
	return q, err
}

// checkEdit accepts an edited input only on an approval of an editable
// operation, decided by one person.
func (q *Question) checkEdit(r *Response) error {
	if r.Edited == "" && !r.Always {
		return nil
	}
	switch {
	case q.Operation == nil:
		return Errorf(EINVALID, "only an approval of an operation can be edited or always allowed")
	case !r.Approved():
		r.Edited, r.Always = "", false // a denial edits nothing
	case r.Edited != "" && q.NeedsSeveral():
		return Errorf(EINVALID, "an operation that needs %d approvals cannot be edited: deny it and ask again", q.Quorum)
	case r.Edited != "" && !q.Editable():
		return Errorf(EINVALID, "the input of this %s operation cannot be edited", q.Operation.Type)
	case r.Always && r.Edited != "":
		return Errorf(EINVALID, "approve an edited operation without 'always': a learned rule allows only what was asked")
	case len(r.Edited) > MaxContextLen:
		return Errorf(EINVALID, "the edited input is longer than %d characters", MaxContextLen)
	}
	return nil
}

// Cancel implements QuestionService.
func (s *Service) Cancel(ctx context.Context, id, reason string) (*Question, error) {
	actor := ActorFrom(ctx)
	if len(reason) > MaxAnswerLen {
		return nil, Errorf(EINVALID, "reason is longer than %d characters", MaxAnswerLen)
	}
	return s.settle(ctx, ActionCancel, id, func(q *Question, now time.Time) (*Event, error) {
		q.Status, q.RespondedBy, q.RespondedAt, q.CancelReason = StatusCancelled, actor, &now, reason
		return newQuestionEvent(EventQuestionCancelled, q, actor, now), nil
	})
}

// settle applies a transition out of pending, when the principal in ctx
// may do act (the service's own transitions pass act ""). The rule comes
// first, so a stranger learns nothing of how a question was settled; then
// a question that is no longer pending gets a conflict naming who settled
// it and when.
func (s *Service) settle(ctx context.Context, act Action, id string, fn func(q *Question, now time.Time) (*Event, error)) (*Question, error) {
	return s.settleOrCount(ctx, act, id, func(q *Question, now time.Time) (*Event, bool, error) {
		ev, err := fn(q, now)
		return ev, true, err
	})
}

// settleOrCount is settle for a change that may leave the question
// pending (one approval of several): fn reports whether it settled.
func (s *Service) settleOrCount(ctx context.Context, act Action, id string, fn func(q *Question, now time.Time) (*Event, bool, error)) (*Question, error) {
	now := s.clock.Now()
	p := PrincipalFrom(ctx)
	if act == ActionAnswer || act == ActionCancel {
		p = s.withGroups(ctx, p, id)
	}
	var refusal error
	var refusedQ *Question
	q, err := s.store.UpdateQuestion(ctx, id, s.hookQuestion(func(q *Question) (*Event, error) {
		refusal, refusedQ = nil, nil
		if act != "" {
			if err := s.access.Authorize(p, act, q); err != nil {
				refusal, refusedQ = err, q.Clone()
				return nil, err
			}
		}
		if !q.Pending() {
			return nil, Conflict(q)
		}
		ev, _, err := fn(q, now)
		return ev, err
	}))
	if refusal != nil && err == refusal {
		return nil, s.refused(ctx, p, act, refusedQ, refusal)
	}
	if err != nil {
		return nil, err
	}
	s.notifier.Publish(id)
	s.notifier.Publish(runKey(q.RunID))
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
		e.Message = "question " + q.ID + " was already answered by " + PersonName(q.RespondedBy) + " at " + at
	case StatusTimeout:
		e.Message = "question " + q.ID + " timed out at " + at
	case StatusCancelled:
		e.Message = "question " + q.ID + " was cancelled by " + PersonName(q.RespondedBy) + " at " + at
	default:
		e.Message = "question " + q.ID + " is " + string(q.Status)
	}
	return e
}

// SweepExpired times out every pending question that is due now and returns
// how many it settled. It reads only the due part of the deadline index.
func (s *Service) SweepExpired(ctx context.Context) (int, error) {
	now := s.clock.Now()
	return s.sweepDue(ctx, now, s.store.DueQuestions, func(q *Question) (*Event, error) {
		if !q.Pending() {
			return nil, Conflict(q) // answered meanwhile
		}
		if q.TimeoutAt == nil || q.TimeoutAt.After(now) {
			return nil, Errorf(ECONFLICT, "question %s is not due", q.ID)
		}
		q.Status, q.Response, q.RespondedBy, q.RespondedAt = StatusTimeout, q.DefaultResponse.clone(), ActorSystem, &now
		return newQuestionEvent(EventQuestionTimeout, q, ActorSystem, now), nil
	}, true)
}

// sweepDue applies change to every question due (ids read by due, a
// store index read up to now) and returns how many it changed: a batch of
// them in each commit, so that a restart with thousands overdue settles
// them in a few commits, not one each, and nothing due is only a read.
// A question the change refuses with ECONFLICT (settled or no longer due
// meanwhile) is left alone. runs says the change may wake the question's
// run.
func (s *Service) sweepDue(ctx context.Context, now time.Time, due func(context.Context, time.Time, int) ([]string, error),
	change func(q *Question) (*Event, error), runs bool) (int, error) {
	const batch = 256
	n := 0
	for {
		ids, err := due(ctx, now, batch)
		if err != nil || len(ids) == 0 {
			return n, err
		}
		updated, errs, err := s.store.UpdateQuestions(ctx, ids, s.hookQuestion(change))
		if err != nil {
			return n, err
		}
		for i, q := range updated {
			if q == nil {
				if c := ErrorCode(errs[i]); c != ECONFLICT && c != ENOTFOUND {
					return n, errs[i]
				}
				continue
			}
			n++
			s.notifier.Publish(q.ID)
			if runs {
				s.notifier.Publish(runKey(q.RunID))
			}
		}
		if len(ids) < batch {
			return n, nil
		}
	}
}

// Questions implements QuestionService: the first page of f.
func (s *Service) Questions(ctx context.Context, f QuestionFilter) ([]*Question, error) {
	page, err := s.QuestionPage(ctx, f)
	return page.Questions, err
}

// QuestionPage implements QuestionService. A list by status alone also
// says how many questions it holds in all (Total).
func (s *Service) QuestionPage(ctx context.Context, f QuestionFilter) (QuestionPage, error) {
	var err error
	if f, err = s.scope(ctx, f); err != nil {
		return QuestionPage{}, err
	}
	page, err := s.store.Questions(ctx, f)
	if err != nil {
		return QuestionPage{}, err
	}
	if byStatusAlone(f) {
		if page.Total, err = s.store.CountQuestions(ctx, f.Status); err != nil {
			return QuestionPage{}, err
		}
	}
	for i, q := range page.Questions {
		page.Questions[i] = q.Redacted()
	}
	if page.Questions == nil {
		page.Questions = []*Question{}
	}
	return page, nil
}

// scope narrows f to what the principal in ctx may see: everything for
// those who answer, their own questions for askers.
func (s *Service) scope(ctx context.Context, f QuestionFilter) (QuestionFilter, error) {
	p := PrincipalFrom(ctx)
	if p.Local || p.seesAll() {
		return f, nil
	}
	if !p.Has(ScopeAsk) {
		return f, s.refused(ctx, p, ActionRead, &Question{RunID: f.RunID}, lacks(p, ScopeAnswer))
	}
	if f.RunID != "" {
		run, err := s.store.Run(ctx, f.RunID)
		if err != nil && ErrorCode(err) != ENOTFOUND {
			return f, err
		}
		if err := s.access.AuthorizeRun(p, ActionRead, f.RunID, run); err != nil {
			return f, s.refused(ctx, p, ActionRead, &Question{RunID: f.RunID}, err)
		}
	}
	f.Asker = p.ID
	return f, nil
}

// Receive implements QuestionService.
func (s *Service) Receive(ctx context.Context, id string) (*Question, error) {
	q, err := s.authorized(ctx, ActionReceive, id)
	if err != nil {
		return nil, err
	}
	if q.Pending() {
		return q.Redacted(), nil
	}
	if q.ReceivedAt != nil && !q.Sensitive {
		return q.Redacted(), nil
	}
	var got *Question
	now := s.clock.Now()
	_, err = s.store.UpdateQuestion(ctx, id, s.hookQuestion(func(q *Question) (*Event, error) {
		got = nil
		if q.Pending() {
			got = q.Redacted()
			return nil, errNoChange
		}
		if q.ReceivedAt != nil {
			if q.Sensitive {
				return nil, Errorf(ECONFLICT, "the sensitive answer to %s was already received and scrubbed", id)
			}
			got = q.Redacted()
			return nil, errNoChange
		}
		q.ReceivedAt = &now
		if q.Sensitive && q.Response != nil {
			plain, ok := unseal(s.sealer, q.ID, q.Response)
			if !ok {
				// Sealed by a previous run of the service: the secret is
				// gone. Ask again (ReopenSealed does this at start).
				ev := s.reopen(q, now)
				got = q.Redacted()
				return ev, nil
			}
			got = q.Clone()
			got.Response = &plain
			q.Response = q.Response.redacted()
			return nil, nil
		}
		got = q.Redacted()
		return nil, nil
	}))
	if err != nil && err != errNoChange {
		return nil, err
	}
	if got.Pending() {
		s.notifier.Publish(id)
	}
	return got, nil
}

// errNoChange ends an update that has nothing to write.
var errNoChange = Errorf(ECONFLICT, "no change")

// noticeReopened tells people why a question they answered waits again.
const noticeReopened = "The service restarted before the agent received this sensitive answer, so it was never stored: please answer again."

// reopen returns a question whose sealed answer was lost to a restart to
// pending, with time to answer again, and returns the event saying so.
func (s *Service) reopen(q *Question, now time.Time) *Event {
	q.Status, q.Response, q.RespondedBy, q.RespondedAt, q.ReceivedAt = StatusPending, nil, "", nil, nil
	q.Notice = noticeReopened
	if q.TimeoutAt != nil && q.TimeoutAt.Before(now.Add(s.timeouts.Min)) {
		at := now.Add(s.timeouts.Min)
		q.TimeoutAt = &at
	}
	ev := newQuestionEvent(EventQuestionReopened, q, ActorSystem, now)
	ev.Reason = noticeReopened
	return ev
}

// ReopenSealed returns to pending every question whose sensitive answer
// was sealed by a previous run of the service (its key died with it) and
// never received: people are asked again and the waiting agent keeps
// waiting. Run it once at start.
func (s *Service) ReopenSealed(ctx context.Context) (int, error) {
	ids, err := s.store.SealedQuestions(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range ids {
		now := s.clock.Now()
		_, err := s.store.UpdateQuestion(ctx, id, s.hookQuestion(func(q *Question) (*Event, error) {
			if q.Response == nil || q.Response.Sealed == nil || q.Response.Sealed.Key == s.sealer.KeyID() {
				return nil, errNoChange
			}
			return s.reopen(q, now), nil
		}))
		switch {
		case err == nil:
			n++
			s.notifier.Publish(id)
		case err == errNoChange, ErrorCode(err) == ENOTFOUND:
		default:
			return n, err
		}
	}
	return n, nil
}

// RunState implements QuestionService: the run's record and its recent
// history. Principals that see only their own questions read only the runs
// they started.
func (s *Service) RunState(ctx context.Context, runID string) (*RunState, error) {
	run, err := s.RunRecord(ctx, runID)
	if err != nil {
		return nil, err
	}
	f, err := s.scope(ctx, QuestionFilter{RunID: runID, Reverse: true, Limit: MaxHistory})
	if err != nil {
		return nil, err
	}
	page, err := s.store.Questions(ctx, f)
	if err != nil {
		return nil, err
	}
	return NewRunState(run, page.Questions), nil
}

// RunRecord returns run id's record, if the principal in ctx may read it.
func (s *Service) RunRecord(ctx context.Context, id string) (*Run, error) {
	if err := ValidateRunID(id); err != nil {
		return nil, err
	}
	run, err := s.store.Run(ctx, id)
	if err != nil {
		return nil, err
	}
	p := PrincipalFrom(ctx)
	if err := s.access.AuthorizeRun(p, ActionRead, id, run); err != nil {
		return nil, s.refused(ctx, p, ActionRead, &Question{RunID: id}, err)
	}
	return run, nil
}

// Events implements EventLog: it reads the durable log and returns what
// the principal in ctx may see.
func (s *Service) Events(ctx context.Context, after uint64, limit int) ([]*Event, uint64, error) {
	evs, err := s.store.Events(ctx, after, limit)
	if err != nil {
		return nil, after, err
	}
	last := after
	if len(evs) > 0 {
		last = evs[len(evs)-1].Seq
	}
	return visible(ctx, evs), last, nil
}

// RunEvents implements EventLog: it reads run's events by the store's
// index and returns what the principal in ctx may see.
func (s *Service) RunEvents(ctx context.Context, run string, after uint64, limit int) ([]*Event, uint64, error) {
	if err := ValidateRunID(run); err != nil {
		return nil, after, err
	}
	evs, last, err := s.store.RunEvents(ctx, run, after, limit)
	if err != nil {
		return nil, after, err
	}
	return visible(ctx, evs), last, nil
}

// visible keeps the events of evs the principal in ctx may see.
func visible(ctx context.Context, evs []*Event) []*Event {
	p := PrincipalFrom(ctx)
	out := evs[:0]
	for _, ev := range evs {
		if ev.VisibleTo(p) {
			out = append(out, ev)
		}
	}
	return out
}

// Prune applies retention: it deletes questions settled more than
// retention ago (with their indexes and Slack records) and events older
// than that, in batches, and returns how many questions it deleted.
// retention 0 keeps everything.
func (s *Service) Prune(ctx context.Context, retention time.Duration) (int, error) {
	if retention <= 0 {
		return 0, nil
	}
	const batch = 256
	before := s.clock.Now().Add(-retention)
	total := 0
	for {
		n, err := s.store.Prune(ctx, before, batch)
		total += n
		if err != nil || n < batch {
			return total, err
		}
	}
}

// LastSeq returns the sequence of the last event on the log: where a live
// reader starts.
func (s *Service) LastSeq(ctx context.Context) (uint64, error) { return s.store.LastSeq(ctx) }

// Changed returns a channel closed at the next committed change. Readers of
// the event log wait on it instead of polling.
func (s *Service) Changed() <-chan struct{} { return s.notifier.Changed() }

// byStatusAlone reports whether f lists by status and nothing else (its
// total is a counter away).
func byStatusAlone(f QuestionFilter) bool {
	g := f
	g.Limit, g.Cursor, g.Reverse = 0, "", false
	return f.Status != "" && g.RunID == "" && g.Asker == "" && g.Type == "" && g.Assignee == "" && !g.Unassigned &&
		g.RespondedBy == "" && len(g.Queue) == 0 && g.NotAskedBy == ""
}
