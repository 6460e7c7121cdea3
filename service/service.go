package service

import (
	"context"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/policy"
	"github.com/hitlbot/hitl/steer"
	"github.com/hitlbot/hitl/uid"
)

// Service is the application: one part per aggregate, each a small type
// that holds only what it uses (its stores by aggregate, the clock, the
// notifier, the rules) and calls the other parts through small interfaces.
// Edges take the part they use (or a narrower interface of it), never the
// whole. NewService builds every part over one backend; each part may
// also be built alone (NewQuestions, NewRuns, NewPolicies, ...).
type Service struct {
	Questions   *Questions   // create, answer, wait, cancel, reassign, remind
	Runs        *Runs        // steering, checkpoints, hook steps, sessions, threshold
	Policies    *Policies    // load, set, decide, learn, sync
	Guard       *Guard       // rate limits, streams, the refusal audit
	Webhooks    *Webhooks    // endpoints, deliveries, replay, ping
	SignIns     *SignIns     // the web inbox's sign-in sessions
	Observation *Observation // stats, alerts, pending counts
	Log         *Log         // the event log: catch-up and change notices
	Audit       *Audit       // the audit trail: read, verify, prune (audit.go)
}

// Stores is what the parts of a Service read and write, by aggregate:
// one backend (store.DB, postgres.DB) is all of them. It is not
// hitl.Store: the Slack envelopes and the webhook worker's claims are
// not the service's.
type Stores interface {
	QuestionsStore
	RunsStore
	PoliciesStore
	hitl.SignInStore
	WebhooksStore
	ObservedStore
}

// ServiceConfig configures a Service. Zero fields take defaults, except
// Notifier.
type ServiceConfig struct {
	// Notifier wakes waiters after each change (required: notify.New() in
	// one process; a backend shared by several processes supplies its own).
	Notifier hitl.Notifier
	Clock    hitl.Clock
	Timeouts hitl.Timeouts
	NewID    func() string
	// Access is who may answer and administer (default: anyone with the
	// answer scope, no Slack admins).
	Access access.Access
	// Limiter throttles creation (default: none).
	Limiter hitl.Limiter
	// Threshold is the interaction threshold of runs without their own
	// (docs/protocol.md#run-state-and-the-interaction-threshold); nil: none, questions are never refused.
	Threshold *int
	// ParseCommand parses shell command lines for the approval policy
	// (shell.Parse); nil: every shell operation asks a person.
	ParseCommand policy.CommandParser
	// LearnedTTL is how long a learned rule holds (default
	// DefaultLearnedTTL).
	LearnedTTL time.Duration
	// Enforce is set on every grant (hitl.CommandGrant.Enforce): "kernel" or "".
	Enforce string
	// Limits are per-principal rate limits of control requests, run
	// reports and policy calls (default: none).
	Limits map[hitl.Limit]hitl.Limiter
	// MaxStreams bounds each principal's concurrent streams and long
	// polls (0: no bound; config's default is config.DefaultMaxStreams).
	MaxStreams int
	// Reminders are the reminders and escalation of each question type
	// (policy rules may override them); none by default.
	Reminders hitl.ReminderPolicies
	// Sessions is when a silent coding-agent session is shown idle and
	// ended (default: never).
	Sessions steer.SessionTimes
	// Sealer seals sensitive answers (seal.New, or seal.WithKey from the
	// key file CheckSealKey asks for); nil: they are kept in this
	// process's memory, never in the store, and lost at restart.
	Sealer hitl.Sealer
	// Webhooks are the configured webhook endpoints (nil: none);
	// Callbacks is where a question's callbackUrl may point (zero:
	// nowhere).
	Webhooks  *hitl.WebhookRoutes
	Callbacks CallbackCheck
	// StatsWindow computes the stats of every run from the store's
	// rollups (observe.New); nil: Stats reads the window's questions.
	StatsWindow StatsWindow
	// AuditTrail is where sign-ins, sign-outs and webhook failures are
	// audited, and the audit trail is read (nil: they are not, and it
	// cannot be). AuditKey signs the checkpoints of pruned records
	// (derived from the seal key file: AuditKeyOf); nil: the trail is
	// never pruned.
	AuditTrail hitl.AuditStore
	AuditKey   []byte
}

// NewService returns the lifecycle over store: every part, each given
// what it uses.
func NewService(store Stores, cfg ServiceConfig) *Service {
	if cfg.Notifier == nil {
		panic("hitl: NewService without a Notifier")
	}
	guard := NewGuard(GuardConfig{Store: store, Clock: cfg.Clock, Access: cfg.Access, Notifier: cfg.Notifier,
		Limits: cfg.Limits, MaxStreams: cfg.MaxStreams})
	questions := NewQuestions(QuestionsConfig{Store: store, Clock: cfg.Clock, Timeouts: cfg.Timeouts, NewID: cfg.NewID,
		Access: cfg.Access, Limiter: cfg.Limiter, Notifier: cfg.Notifier, Sealer: cfg.Sealer, Threshold: cfg.Threshold,
		Reminders: cfg.Reminders, Webhooks: cfg.Webhooks, Callbacks: cfg.Callbacks, Guard: guard})
	return &Service{
		Questions: questions,
		Runs: NewRuns(RunsConfig{Store: store, Clock: cfg.Clock, Access: cfg.Access, Notifier: cfg.Notifier,
			Threshold: cfg.Threshold, Sessions: cfg.Sessions, Webhooks: cfg.Webhooks, Guard: guard, Questions: questions}),
		Policies: NewPolicies(PoliciesConfig{Store: store, Clock: cfg.Clock, Access: cfg.Access, Notifier: cfg.Notifier,
			ParseCommand: cfg.ParseCommand, LearnedTTL: cfg.LearnedTTL, Enforce: cfg.Enforce, Callbacks: cfg.Callbacks,
			Guard: guard, Questions: questions}),
		Guard: guard,
		Webhooks: NewWebhooks(WebhooksConfig{Store: store, Clock: cfg.Clock, Access: cfg.Access, Notifier: cfg.Notifier,
			Routes: cfg.Webhooks, Guard: guard}),
		SignIns: NewSignIns(SignInsConfig{Store: store, Clock: cfg.Clock, Access: cfg.Access, Audited: cfg.AuditTrail != nil,
			Guard: guard}),
		Observation: NewObservation(ObservationConfig{Store: store, Clock: cfg.Clock, Access: cfg.Access,
			Notifier: cfg.Notifier, Window: cfg.StatsWindow, Guard: guard, Questions: questions}),
		Log:   NewLog(store, cfg.Notifier),
		Audit: NewAudit(AuditConfig{Trail: cfg.AuditTrail, Key: cfg.AuditKey, Clock: cfg.Clock, Access: cfg.Access, Guard: guard}),
	}
}

// Access returns the rules the service enforces, for edges that must build
// principals (Slack users) or show a person's queue.
func (s *Service) Access() access.Access { return s.Questions.access }

// SetDirectory makes the service look group membership up in d
// (Questions.SetDirectory).
func (s *Service) SetDirectory(d hitl.Directory) { s.Questions.SetDirectory(d) }

// gate is the Guard as the other parts call it: a refusal is audited,
// and a principal's rate of runs, control requests and policy calls is
// bounded.
type gate interface {
	refused(ctx context.Context, p auth.Principal, act auth.Action, q *hitl.Question, err error) error
	Throttle(ctx context.Context, l hitl.Limit) error
}

// Questions is the question lifecycle.
type Questions struct {
	hooks // each change's event carries its webhook deliveries (webhook.go)

	store     QuestionsStore
	clock     hitl.Clock
	timeouts  hitl.Timeouts
	newID     func() string
	access    access.Access
	limiter   hitl.Limiter
	notifier  hitl.Notifier
	sealer    hitl.Sealer
	threshold *int // the default interaction threshold (nil: none)
	reminders hitl.ReminderPolicies
	callbacks CallbackCheck
	guard     gate
	// policies is the approval policy, for the reminder plan of the rule
	// that asked and for "always allow" (nil: no policy; set by
	// NewPolicies).
	policies teacher
	// dir looks up user groups (directory.go); failures are the recent
	// failed creations (failures.go), which alerts count.
	dir      directory
	failures failureLog
}

// QuestionsStore is what Questions reads and writes: the questions, the
// reminder and deadline indexes, retention, and a run's record (who owns
// it, its threshold).
type QuestionsStore interface {
	hitl.QuestionStore
	hitl.ReminderStore
	hitl.RetentionStore
	RunReader
}

// RunReader reads a run's record.
type RunReader interface {
	Run(ctx context.Context, id string) (*hitl.Run, error)
}

// teacher is the approval policy as Questions calls it (*Policies).
type teacher interface {
	rules() []hitl.Rule
	learnable(q *hitl.Question, rules []hitl.Rule) (hitl.LearnedRuleKey, error)
	learn(ctx context.Context, q *hitl.Question, key hitl.LearnedRuleKey, by string) error
}

// QuestionsConfig is what Questions use. Zero fields take defaults, except
// Store, Notifier and Guard.
type QuestionsConfig struct {
	Store     QuestionsStore
	Clock     hitl.Clock
	Timeouts  hitl.Timeouts
	NewID     func() string
	Access    access.Access
	Limiter   hitl.Limiter
	Notifier  hitl.Notifier
	Sealer    hitl.Sealer
	Threshold *int
	Reminders hitl.ReminderPolicies
	Webhooks  *hitl.WebhookRoutes
	Callbacks CallbackCheck
	Guard     *Guard
}

// NewQuestions returns the question lifecycle (ServiceConfig says what
// each field does). Without Policies built over it, nothing is learnable.
func NewQuestions(cfg QuestionsConfig) *Questions {
	if cfg.Clock == nil {
		cfg.Clock = hitl.SystemClock{}
	}
	if cfg.Timeouts == (hitl.Timeouts{}) {
		cfg.Timeouts = hitl.DefaultTimeouts()
	}
	if cfg.NewID == nil {
		cfg.NewID = func() string { return uid.New("q_") }
	}
	if cfg.Sealer == nil {
		cfg.Sealer = newMemorySealer()
	}
	return &Questions{hooks: hooks{cfg.Webhooks}, store: cfg.Store, clock: cfg.Clock, timeouts: cfg.Timeouts, newID: cfg.NewID,
		access: cfg.Access, limiter: cfg.Limiter, notifier: cfg.Notifier, sealer: cfg.Sealer, threshold: cfg.Threshold,
		reminders: cfg.Reminders, callbacks: callbacksOf(cfg.Callbacks), guard: cfg.Guard}
}

var _ hitl.QuestionService = (*Questions)(nil)

// rule returns the configured rule named name (nil for none, or no
// policy).
func (s *Questions) rule(name string) *hitl.Rule {
	if s.policies == nil {
		return nil
	}
	return ruleNamed(s.policies.rules(), name)
}

// rules are the configured rules (nil: no policy).
func (s *Questions) rules() []hitl.Rule {
	if s.policies == nil {
		return nil
	}
	return s.policies.rules()
}

// Create implements QuestionService.
func (s *Questions) Create(ctx context.Context, runID string, n hitl.NewQuestion) (*hitl.Question, bool, error) {
	q, created, err := s.create(ctx, runID, n, nil)
	s.failures.note(err, s.clock)
	return q, created, err
}

// create is Create with a last touch on the built question (an approval
// the policy asked for gets its operation, approvers and quorum).
func (s *Questions) create(ctx context.Context, runID string, n hitl.NewQuestion, touch func(*hitl.Question)) (*hitl.Question, bool, error) {
	p := auth.PrincipalFrom(ctx)
	if err := s.access.Authorize(p, auth.ActionAsk, nil); err != nil {
		return nil, false, s.guard.refused(ctx, p, auth.ActionAsk, &hitl.Question{RunID: runID}, err)
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
	s.plan(q, s.rule(q.Rule))
	if q.Type == hitl.Approval && q.DefaultResponse.Approved() && !s.access.AllowDefaultApprove {
		return nil, false, fault.Errorf(fault.EINVALID, "defaultResponse: an approval cannot approve itself when nobody answers; use deny, leave it out, or set allow_default_approve in config")
	}
	run, err := s.store.Run(ctx, runID)
	if err != nil && fault.Code(err) != fault.ENOTFOUND {
		return nil, false, err
	}
	if err := s.access.AuthorizeRun(p, auth.ActionReport, runID, run); err != nil {
		return nil, false, s.guard.refused(ctx, p, auth.ActionAsk, &hitl.Question{RunID: runID}, err)
	}
	if err := refuseByThreshold(runID, thresholdOf(run, s.threshold), q); err != nil {
		return nil, false, err
	}
	if q.IdempotencyKey != "" {
		existing, err := s.store.QuestionByKey(ctx, runID, hitl.KeyOf(p.ID, q.IdempotencyKey))
		switch fault.Code(err) {
		case "":
			if err := sameRequest(existing, q); err != nil {
				return nil, false, err
			}
			return existing.Redacted(), false, nil
		case fault.ENOTFOUND:
		default:
			return nil, false, err
		}
	}
	if s.limiter != nil {
		if d := s.limiter.Allow(p.ID, runID); d > 0 {
			return nil, false, s.guard.refused(ctx, p, auth.ActionAsk, &hitl.Question{RunID: runID}, rateLimited(p, runID, d))
		}
	}
	if run == nil || run.Asker == "" {
		// Starting a run is charged to p's LimitRuns.
		if err := s.guard.Throttle(ctx, hitl.LimitRuns); err != nil {
			return nil, false, err
		}
	}
	// Who may add to the run is decided again in the question's own
	// transaction, on the run as it is there: of two principals starting
	// one run at once, the first owns it (the question makes it its
	// asker's) and the other is refused, with no commit of its own.
	var refusal error
	admit := func(run *hitl.Run) error {
		refusal = s.access.AuthorizeRun(p, auth.ActionReport, runID, run)
		return refusal
	}
	stored, created, err := s.store.CreateQuestion(ctx, q, withEdge(ctx, hitl.NewQuestionEvent(hitl.EventQuestionAsked, q, p.ID, now)), admit)
	if refusal != nil && err == refusal {
		return nil, false, s.guard.refused(ctx, p, auth.ActionAsk, &hitl.Question{RunID: runID}, refusal)
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
func sameRequest(existing, q *hitl.Question) error {
	if existing.Asker != q.Asker && !(auth.IsLocal(existing.Asker) && auth.IsLocal(q.Asker)) {
		return fault.Errorf(fault.ECONFLICT, "idempotency key %q of run %s is held by another asker's question; use another key", q.IdempotencyKey, q.RunID)
	}
	if existing.RequestHash != "" && existing.RequestHash != q.RequestHash {
		return fault.Errorf(fault.ECONFLICT, "idempotency key %q of run %s is already used by question %s, which asks something else; use another key (or receive that question's outcome first)", q.IdempotencyKey, q.RunID, existing.ID)
	}
	return nil
}

// authorized loads question id and applies the rule for act to the
// principal in ctx; a refusal is audited.
func (s *Questions) authorized(ctx context.Context, act auth.Action, id string) (*hitl.Question, error) {
	q, err := s.store.Question(ctx, id)
	if err != nil {
		return nil, err
	}
	p := auth.PrincipalFrom(ctx)
	if err := s.access.Authorize(p, act, q); err != nil {
		return nil, s.guard.refused(ctx, p, act, q, err)
	}
	return q, nil
}

// Question implements QuestionService.
func (s *Questions) Question(ctx context.Context, id string) (*hitl.Question, error) {
	q, err := s.authorized(ctx, auth.ActionRead, id)
	if err != nil {
		return nil, err
	}
	return q.Redacted(), nil
}

// Wait implements QuestionService.
func (s *Questions) Wait(ctx context.Context, id string) (*hitl.Question, error) {
	if _, err := s.authorized(ctx, auth.ActionRead, id); err != nil {
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
func (s *Questions) Answer(ctx context.Context, id string, r hitl.Response) (*hitl.Question, error) {
	p := auth.PrincipalFrom(ctx)
	var learn *hitl.LearnedRuleKey
	rules := s.rules() // read before the store's transaction: never inside it
	q, err := s.settleOrCount(ctx, auth.ActionAnswer, id, func(q *hitl.Question, now time.Time) (*hitl.Event, bool, error) {
		learn = nil
		norm, err := q.ValidateResponse(r)
		if err != nil {
			return nil, false, err
		}
		if err := q.CheckEdit(&norm); err != nil {
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
				return nil, false, fault.Errorf(fault.EINVALID, "%s already approved %s: %s; another person must approve", p.ID, q.ID, q.Tally())
			}
			q.Approvals = append(q.Approvals, hitl.Grant{By: p.ID, User: p.SlackUser, At: now, Text: norm.Text})
			if !q.QuorumMet() {
				return withEdge(ctx, hitl.NewQuestionEvent(hitl.EventApprovalAdded, q, p.ID, now)), false, nil
			}
		}
		q.Status, q.Response, q.RespondedBy, q.RespondedAt, q.Notice = hitl.StatusAnswered, &norm, p.ID, &now, ""
		return withEdge(ctx, hitl.NewQuestionEvent(hitl.EventQuestionAnswered, q, p.ID, now)), true, nil
	})
	if err == nil && learn != nil {
		if lerr := s.policies.learn(ctx, q, *learn, p.ID); lerr != nil { // learnable: s.policies is set
			return q, lerr
		}
	}
	return q, err
}

// Cancel implements QuestionService.
func (s *Questions) Cancel(ctx context.Context, id, reason string) (*hitl.Question, error) {
	actor := auth.ActorFrom(ctx)
	if len(reason) > hitl.MaxAnswerLen {
		return nil, fault.Errorf(fault.EINVALID, "reason is longer than %d characters", hitl.MaxAnswerLen)
	}
	return s.settle(ctx, auth.ActionCancel, id, func(q *hitl.Question, now time.Time) (*hitl.Event, error) {
		q.Status, q.RespondedBy, q.RespondedAt, q.CancelReason = hitl.StatusCancelled, actor, &now, reason
		return withEdge(ctx, hitl.NewQuestionEvent(hitl.EventQuestionCancelled, q, actor, now)), nil
	})
}

// settle applies a transition out of pending, when the principal in ctx
// may do act (the service's own transitions pass act ""). The rule comes
// first, so a stranger learns nothing of how a question was settled; then
// a question that is no longer pending gets a conflict naming who settled
// it and when.
func (s *Questions) settle(ctx context.Context, act auth.Action, id string, fn func(q *hitl.Question, now time.Time) (*hitl.Event, error)) (*hitl.Question, error) {
	return s.settleOrCount(ctx, act, id, func(q *hitl.Question, now time.Time) (*hitl.Event, bool, error) {
		ev, err := fn(q, now)
		return ev, true, err
	})
}

// settleOrCount is settle for a change that may leave the question
// pending (one approval of several): fn reports whether it settled.
func (s *Questions) settleOrCount(ctx context.Context, act auth.Action, id string, fn func(q *hitl.Question, now time.Time) (*hitl.Event, bool, error)) (*hitl.Question, error) {
	now := s.clock.Now()
	p := auth.PrincipalFrom(ctx)
	if act == auth.ActionAnswer || act == auth.ActionCancel {
		p = s.withGroups(ctx, p, id)
	}
	var refusal error
	var refusedQ *hitl.Question
	q, err := s.store.UpdateQuestion(ctx, id, s.hookQuestion(func(q *hitl.Question) (*hitl.Event, error) {
		refusal, refusedQ = nil, nil
		if act != "" {
			if err := s.access.Authorize(p, act, q); err != nil {
				refusal, refusedQ = err, q.Clone()
				return nil, err
			}
		}
		if !q.Pending() {
			return nil, hitl.Conflict(q)
		}
		ev, _, err := fn(q, now)
		return ev, err
	}))
	if refusal != nil && err == refusal {
		return nil, s.guard.refused(ctx, p, act, refusedQ, refusal)
	}
	if err != nil {
		return nil, err
	}
	s.notifier.Publish(id)
	s.notifier.Publish(runKey(q.RunID))
	return q.Redacted(), nil
}

// SweepExpired times out every pending question that is due now and returns
// how many it settled. It reads only the due part of the deadline index.
func (s *Questions) SweepExpired(ctx context.Context) (int, error) {
	now := s.clock.Now()
	return s.sweepDue(ctx, now, s.store.DueQuestions, func(q *hitl.Question) (*hitl.Event, error) {
		if !q.Pending() {
			return nil, hitl.Conflict(q) // answered meanwhile
		}
		if q.TimeoutAt == nil || q.TimeoutAt.After(now) {
			return nil, fault.Errorf(fault.ECONFLICT, "question %s is not due", q.ID)
		}
		q.Status, q.Response, q.RespondedBy, q.RespondedAt = hitl.StatusTimeout, q.DefaultResponse.Clone(), auth.ActorSystem, &now
		return hitl.NewQuestionEvent(hitl.EventQuestionTimeout, q, auth.ActorSystem, now), nil
	}, true)
}

// sweepDue applies change to every question due (ids read by due, a
// store index read up to now) and returns how many it changed: a batch of
// them in each commit, so that a restart with thousands overdue settles
// them in a few commits, not one each, and nothing due is only a read.
// A question the change refuses with ECONFLICT (settled or no longer due
// meanwhile) is left alone. runs says the change may wake the question's
// run.
func (s *Questions) sweepDue(ctx context.Context, now time.Time, due func(context.Context, time.Time, int) ([]string, error),
	change func(q *hitl.Question) (*hitl.Event, error), runs bool) (int, error) {
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
				if c := fault.Code(errs[i]); c != fault.ECONFLICT && c != fault.ENOTFOUND {
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
func (s *Questions) Questions(ctx context.Context, f hitl.QuestionFilter) ([]*hitl.Question, error) {
	page, err := s.QuestionPage(ctx, f)
	return page.Questions, err
}

// QuestionPage implements QuestionService. A list by status alone also
// says how many questions it holds in all (Total).
func (s *Questions) QuestionPage(ctx context.Context, f hitl.QuestionFilter) (hitl.QuestionPage, error) {
	var err error
	if f, err = s.scope(ctx, f); err != nil {
		return hitl.QuestionPage{}, err
	}
	page, err := s.store.Questions(ctx, f)
	if err != nil {
		return hitl.QuestionPage{}, err
	}
	if byStatusAlone(f) {
		if page.Total, err = s.store.CountQuestions(ctx, f.Status); err != nil {
			return hitl.QuestionPage{}, err
		}
	}
	for i, q := range page.Questions {
		page.Questions[i] = q.Redacted()
	}
	if page.Questions == nil {
		page.Questions = []*hitl.Question{}
	}
	return page, nil
}

// scope narrows f to what the principal in ctx may see: everything for
// those who answer, their own questions for askers.
func (s *Questions) scope(ctx context.Context, f hitl.QuestionFilter) (hitl.QuestionFilter, error) {
	return scope(ctx, f, s.store, s.access, s.guard)
}

// scope is Questions.scope, Runs.scope: run is read by runs, the rules are
// acc and a refusal is audited by g.
func scope(ctx context.Context, f hitl.QuestionFilter, runs RunReader, acc access.Access, g gate) (hitl.QuestionFilter, error) {
	p := auth.PrincipalFrom(ctx)
	if p.Local || p.SeesAll() {
		return f, nil
	}
	if !p.Has(auth.ScopeAsk) {
		return f, g.refused(ctx, p, auth.ActionRead, &hitl.Question{RunID: f.RunID}, access.Lacks(p, auth.ScopeAnswer))
	}
	if f.RunID != "" {
		run, err := runs.Run(ctx, f.RunID)
		if err != nil && fault.Code(err) != fault.ENOTFOUND {
			return f, err
		}
		if err := acc.AuthorizeRun(p, auth.ActionRead, f.RunID, run); err != nil {
			return f, g.refused(ctx, p, auth.ActionRead, &hitl.Question{RunID: f.RunID}, err)
		}
	}
	f.Asker = p.ID
	return f, nil
}

// Receive implements QuestionService.
func (s *Questions) Receive(ctx context.Context, id string) (*hitl.Question, error) {
	q, err := s.authorized(ctx, auth.ActionReceive, id)
	if err != nil {
		return nil, err
	}
	if q.Pending() {
		return q.Redacted(), nil
	}
	if q.ReceivedAt != nil && !q.Sensitive {
		return q.Redacted(), nil
	}
	var got *hitl.Question
	now := s.clock.Now()
	_, err = s.store.UpdateQuestion(ctx, id, s.hookQuestion(func(q *hitl.Question) (*hitl.Event, error) {
		got = nil
		if q.Pending() {
			got = q.Redacted()
			return nil, errNoChange
		}
		if q.ReceivedAt != nil {
			if q.Sensitive {
				return nil, fault.Errorf(fault.ECONFLICT, "the sensitive answer to %s was already received and scrubbed", id)
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
			q.Response = q.Response.Hidden()
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
var errNoChange = fault.Errorf(fault.ECONFLICT, "no change")

// noticeReopened tells people why a question they answered waits again.
const noticeReopened = "The service restarted before the agent received this sensitive answer, so it was never stored: please answer again."

// reopen returns a question whose sealed answer was lost to a restart to
// pending, with time to answer again, and returns the event saying so.
func (s *Questions) reopen(q *hitl.Question, now time.Time) *hitl.Event {
	q.Status, q.Response, q.RespondedBy, q.RespondedAt, q.ReceivedAt = hitl.StatusPending, nil, "", nil, nil
	q.Notice = noticeReopened
	if q.TimeoutAt != nil && q.TimeoutAt.Before(now.Add(s.timeouts.Min)) {
		at := now.Add(s.timeouts.Min)
		q.TimeoutAt = &at
	}
	ev := hitl.NewQuestionEvent(hitl.EventQuestionReopened, q, auth.ActorSystem, now)
	ev.Reason = noticeReopened
	return ev
}

// ReopenSealed returns to pending every question whose sensitive answer
// was sealed by a previous run of the service (its key died with it) and
// never received: people are asked again and the waiting agent keeps
// waiting. Run it once at start.
func (s *Questions) ReopenSealed(ctx context.Context) (int, error) {
	ids, err := s.store.SealedQuestions(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range ids {
		now := s.clock.Now()
		_, err := s.store.UpdateQuestion(ctx, id, s.hookQuestion(func(q *hitl.Question) (*hitl.Event, error) {
			if q.Response == nil || q.Response.Sealed == nil || q.Response.Sealed.Key == s.sealer.KeyID() {
				return nil, errNoChange
			}
			return s.reopen(q, now), nil
		}))
		switch {
		case err == nil:
			n++
			s.notifier.Publish(id)
		case err == errNoChange, fault.Code(err) == fault.ENOTFOUND:
		default:
			return n, err
		}
	}
	return n, nil
}

// RunState implements QuestionService: the run's record and its recent
// history. Principals that see only their own questions read only the runs
// they started.
func (s *Runs) RunState(ctx context.Context, runID string) (*hitl.RunState, error) {
	run, err := s.RunRecord(ctx, runID)
	if err != nil {
		return nil, err
	}
	f, err := s.scope(ctx, hitl.QuestionFilter{RunID: runID, Reverse: true, Limit: hitl.MaxHistory})
	if err != nil {
		return nil, err
	}
	page, err := s.store.Questions(ctx, f)
	if err != nil {
		return nil, err
	}
	return hitl.NewRunState(run, page.Questions), nil
}

// RunRecord returns run id's record, if the principal in ctx may read it.
func (s *Runs) RunRecord(ctx context.Context, id string) (*hitl.Run, error) {
	if err := steer.ValidateRunID(id); err != nil {
		return nil, err
	}
	run, err := s.store.Run(ctx, id)
	if err != nil {
		return nil, err
	}
	p := auth.PrincipalFrom(ctx)
	if err := s.access.AuthorizeRun(p, auth.ActionRead, id, run); err != nil {
		return nil, s.guard.refused(ctx, p, auth.ActionRead, &hitl.Question{RunID: id}, err)
	}
	return run, nil
}

// Events implements EventLog: it reads the durable log and returns what
// the principal in ctx may see.
func (s *Log) Events(ctx context.Context, after uint64, limit int) ([]*hitl.Event, uint64, error) {
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
func (s *Log) RunEvents(ctx context.Context, run string, after uint64, limit int) ([]*hitl.Event, uint64, error) {
	if err := steer.ValidateRunID(run); err != nil {
		return nil, after, err
	}
	evs, last, err := s.store.RunEvents(ctx, run, after, limit)
	if err != nil {
		return nil, after, err
	}
	return visible(ctx, evs), last, nil
}

// visible keeps the events of evs the principal in ctx may see.
func visible(ctx context.Context, evs []*hitl.Event) []*hitl.Event {
	p := auth.PrincipalFrom(ctx)
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
func (s *Questions) Prune(ctx context.Context, retention time.Duration) (int, error) {
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
func (s *Log) LastSeq(ctx context.Context) (uint64, error) { return s.store.LastSeq(ctx) }

// Changed returns a channel closed at the next committed change. Readers of
// the event log wait on it instead of polling.
func (s *Log) Changed() <-chan struct{} { return s.notifier.Changed() }

// byStatusAlone reports whether f lists by status and nothing else (its
// total is a counter away).
func byStatusAlone(f hitl.QuestionFilter) bool {
	g := f
	g.Limit, g.Cursor, g.Reverse = 0, "", false
	return f.Status != "" && g.RunID == "" && g.Asker == "" && g.Type == "" && g.Assignee == "" && !g.Unassigned &&
		g.RespondedBy == "" && len(g.Queue) == 0 && g.NotAskedBy == ""
}

// learnable is Policies.learnable; without a policy nothing is.
func (s *Questions) learnable(q *hitl.Question, rules []hitl.Rule) (hitl.LearnedRuleKey, error) {
	if s.policies == nil {
		return hitl.LearnedRuleKey{}, fault.Errorf(fault.EINVALID, "'always allow' cannot apply to %s: this service has no approval policy; approve it once instead", q.ID)
	}
	return s.policies.learnable(q, rules)
}

// scope narrows f as Questions.scope does.
func (s *Runs) scope(ctx context.Context, f hitl.QuestionFilter) (hitl.QuestionFilter, error) {
	return scope(ctx, f, s.store, s.access, s.guard)
}

// teach makes t the policy of these questions (NewPolicies).
func (s *Questions) teach(t teacher) { s.policies = t }
