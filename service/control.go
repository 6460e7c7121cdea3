package service

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/runhandle"
	"github.com/hitlbot/hitl/steer"
)

// Runs is what happens to runs: steering, checkpoints, coding-agent hook
// steps and sessions, the interaction threshold.
type Runs struct {
	hooks // each change's last event carries its webhook deliveries (webhook.go)

	store     RunsStore
	clock     hitl.Clock
	access    access.Access
	notifier  hitl.Notifier
	threshold *int // the default interaction threshold (nil: none)
	guard     gate
	questions runEnder // cancels the questions of a run that ended
	// started is when this service began serving control requests: one
	// still in flight from before was cut off by a restart and may be
	// retried. It is taken at the first request, so that starting the
	// service reads no clock.
	started     time.Time
	startedOnce sync.Once
	// sessions are the idle and end times of silent sessions; the
	// session sweep reads runs no sooner than nextSessionSweep.
	sessions         steer.SessionTimes
	sessionSweep     sync.Mutex
	nextSessionSweep time.Time
}

// RunsStore is what Runs read and write: the runs, and the questions of
// a run (its state shows its recent history).
type RunsStore interface {
	hitl.RunStore
	QuestionLister
}

// QuestionLister reads a page of questions.
type QuestionLister interface {
	Questions(ctx context.Context, f hitl.QuestionFilter) (hitl.QuestionPage, error)
}

// runEnder is Questions as Runs call them: the questions of a run that
// ended are cancelled.
type runEnder interface {
	cancelRun(ctx context.Context, runID, reason string)
}

// RunsConfig is what Runs use (ServiceConfig says what each field does).
// Questions cancels the pending questions of a run that ends.
type RunsConfig struct {
	Store     RunsStore
	Clock     hitl.Clock
	Access    access.Access
	Notifier  hitl.Notifier
	Threshold *int
	Sessions  steer.SessionTimes
	Webhooks  *hitl.WebhookRoutes
	Guard     *Guard
	Questions *Questions
}

// NewRuns returns the runs' part.
func NewRuns(cfg RunsConfig) *Runs {
	if cfg.Clock == nil {
		cfg.Clock = hitl.SystemClock{}
	}
	return &Runs{hooks: hooks{cfg.Webhooks}, store: cfg.Store, clock: cfg.Clock, access: cfg.Access, notifier: cfg.Notifier,
		threshold: cfg.Threshold, guard: cfg.Guard, questions: cfg.Questions, sessions: cfg.Sessions}
}

// DedupWindow is how long a control request id is remembered (docs/protocol.md#steering):
// a retry within it gets the cached RESULT (Service.seen).
const DedupWindow = 5 * time.Minute

// Control carries out a loop:control REQUEST (docs/protocol.md#steering) for the principal
// in ctx and returns the messages it produced on that topic, in order:
// the ACK and the RESULT. Both are committed together, with the state
// change and the request's record, in one transaction: the ACK still
// means the request is durably received (a crash leaves both or neither),
// and it is logged before the RESULT, which is logged before the
// loop:current event it causes. A retry of a request id the same
// principal sent within DedupWindow returns the cached RESULT alone (see
// seen); another principal's request with that id is a new request
// (ControlKeyOf). A malformed
// request gets only a bad_request RESULT. The error is for the service
// failing (the store), never for the command failing: that is a RESULT;
// a store failure leaves neither the ACK nor the request recorded.
func (s *Runs) Control(ctx context.Context, req steer.ControlMessage) ([]steer.ControlMessage, error) {
	now := s.clock.Now()
	if err := req.Validate(); err != nil {
		return []steer.ControlMessage{req.Reply(steer.MessageResult, now, steer.Failure(steer.CodeBadRequest, fault.Message(err)))}, nil
	}
	p := auth.PrincipalFrom(ctx)
	if err := s.guard.Throttle(ctx, hitl.LimitControl); err != nil {
		return nil, err // before anything is stored: no ACK
	}
	s.startedOnce.Do(func() { s.started = now })
	refusal := s.access.Authorize(p, auth.ActionSteer, nil)
	var (
		msgs      []steer.ControlMessage
		cancelled bool
	)
	_, err := s.store.SteerRun(ctx, req.Target.RunID, hitl.ControlKeyOf(p.ID, req.RequestID), s.hookSteer(func(run *hitl.Run, prior *hitl.ControlRecord) (hitl.RunUpdate, error) {
		msgs, cancelled = nil, false
		if reused := s.reused(prior, req, now); reused != "" {
			msgs = []steer.ControlMessage{req.Reply(steer.MessageResult, now, steer.Failure(steer.CodeDuplicate, reused))}
			return hitl.RunUpdate{}, nil // another request's id: nothing is carried out, nothing written
		}
		if cached, dup := s.seen(prior, now); cached != nil {
			msgs = []steer.ControlMessage{*cached}
			return hitl.RunUpdate{}, nil // seen: nothing to write
		} else if dup {
			msgs = []steer.ControlMessage{req.Reply(steer.MessageResult, now, steer.Failure(steer.CodeDuplicate,
				"request "+req.RequestID+" is still in flight: wait for its RESULT"))}
			return hitl.RunUpdate{}, nil
		}
		ack := req.Reply(steer.MessageAck, now, steer.ControlPayload{})
		payload, r, state := s.command(p, req, run, refusal, now)
		result := req.Reply(steer.MessageResult, now, payload)
		msgs = []steer.ControlMessage{ack, result}
		cancelled = r != nil && r.Control.Status == steer.RunCancelled
		evs := []*hitl.Event{s.controlEvent(ack, p, now), s.controlEvent(result, p, now)}
		if refusal != nil {
			evs[0].Refused, evs[1].Refused = true, true // its sender's and admins' to read (Event.VisibleTo)
		}
		if state != nil {
			evs = append(evs, s.runStateEvent(state, auth.ActorFrom(ctx), now))
		}
		rec := hitl.ControlRecord{RequestID: req.RequestID, RunID: req.Target.RunID, Command: req.Command, By: p.ID, At: now, Result: &result,
			Request: req.Digest()}
		return hitl.RunUpdate{Run: r, Events: evs, Control: &rec}, nil
	}))
	if err != nil {
		return nil, err
	}
	if len(msgs) == 1 {
		return msgs, nil // a retry: its RESULT, as first given
	}
	s.notifier.Publish(runKey(req.Target.RunID))
	if refusal != nil {
		_ = s.guard.refused(ctx, p, auth.ActionSteer, &hitl.Question{RunID: req.Target.RunID}, refusal)
	}
	if cancelled {
		s.questions.cancelRun(ctx, req.Target.RunID, "the run was cancelled by "+p.ID)
	}
	return msgs, nil
}

// seen is the dedup rule (docs/protocol.md#steering) for a request whose stored record is
// prior (nil: none), at now: a record older than DedupWindow is forgotten
// (the id is new); one with its RESULT was carried out (cached, the RESULT
// to give again). Control writes a record together with its RESULT, so a
// request is in flight only inside that commit, and a retry arriving then
// waits for it (SteerRun serialises a request key) and gets the cached
// RESULT. A record without a RESULT was written by an older hitl that
// recorded receipt first: made since this service started, another
// replica is still carrying it out (dup); made before, it was cut off by
// the restart, and the retry is carried out.
func (s *Runs) seen(prior *hitl.ControlRecord, now time.Time) (cached *steer.ControlMessage, dup bool) {
	switch {
	case prior == nil || prior.At.Before(now.Add(-DedupWindow)):
		return nil, false
	case prior.Result != nil:
		return prior.Result, false
	}
	return nil, !prior.At.Before(s.started)
}

// reused says why req cannot be carried out when its request id already
// named another request of the same principal within DedupWindow (another
// command, run or arguments): a request id names one request, and never
// returns another request's outcome. "" when req is new or a retry.
func (s *Runs) reused(prior *hitl.ControlRecord, req steer.ControlMessage, now time.Time) string {
	if prior == nil || prior.At.Before(now.Add(-DedupWindow)) || prior.Names(req) {
		return ""
	}
	return "request_id " + req.RequestID + " was already used at " + steer.Timestamp(prior.At) + " for " + string(prior.Command) +
		" of run " + prior.RunID + ": send this request with a new request_id"
}

func (s *Runs) controlEvent(m steer.ControlMessage, p auth.Principal, now time.Time) *hitl.Event {
	c := m
	return &hitl.Event{Type: hitl.EventControl, RunID: m.Target.RunID, At: now, Actor: p.ID, Control: &c}
}

func (s *Runs) runStateEvent(e *steer.StateEvent, actor string, now time.Time) *hitl.Event {
	return &hitl.Event{Type: hitl.EventRunState, RunID: e.RunID, At: now, Actor: actor, State: e}
}

// command is what req does to run (nil: there is none), at now, for p
// (refused: refusal, when not nil): the RESULT's payload, the run to
// store (nil: unchanged) and the loop:current event it causes (nil:
// none).
func (s *Runs) command(p auth.Principal, req steer.ControlMessage, run *hitl.Run, refusal error, now time.Time) (steer.ControlPayload, *hitl.Run, *steer.StateEvent) {
	if refusal != nil {
		return steer.Failure(steer.CodeForbidden, fault.Message(refusal)), nil, nil
	}
	if res, refused := run.Refusal(req.Target.RunID, req); refused {
		return res, nil, nil
	}
	r := *run
	r.UpdatedAt = now
	c := &r.Control
	if c.Session != nil {
		sess := *c.Session
		c.Session = &sess
	}
	ok := func(msg string) steer.ControlPayload {
		return steer.ControlPayload{Status: steer.ResultSuccess, Message: msg}
	}
	switch req.Command {
	case steer.CommandPause:
		c.Status, c.PausedBy = steer.RunPaused, p.ID
		r.Unhold()
		return ok(r.Steered(req.Command, "Loop paused"+r.Describe())), &r, nil
	case steer.CommandResume:
		c.Status, c.PausedBy = steer.RunRunning, ""
		msg := r.Steered(req.Command, "Loop resumed"+r.Describe())
		r.Unhold()
		c.LetIn()
		return ok(msg), &r, nil
	case steer.CommandCancel:
		c.Status, c.Reason, c.NewModel, c.Instruction = steer.RunCancelled, steer.ReasonUserCancelled, "", ""
		c.CancelledBy, c.PausedBy = p.ID, ""
		return ok(r.Steered(req.Command, "Loop cancelled"+r.Describe())), &r, r.StateEventOf(steer.StateAbort, steer.ReasonUserCancelled, now)
	case steer.CommandEscalate:
		prev := c.Model
		c.Model, c.NewModel, c.EscalationReason, c.Escalated = req.Payload.Model, req.Payload.Model, req.Payload.Reason, true
		return steer.ControlPayload{Status: steer.ResultSuccess, PreviousModel: prev, NewModel: c.Model, Message: "Escalated to " + c.Model},
			&r, r.StateEventOf(steer.StateRunning, "", now)
	case steer.CommandRedirect:
		c.Instruction = req.Payload.Instruction
		return ok(r.Steered(req.Command, "Instruction queued for the next iteration")), &r, nil
	}
	return steer.Failure(steer.CodeBadRequest, "command "+string(req.Command)+" is unknown"), nil, nil
}

// settleBatch is how many questions one commit settles when a run ends.
const settleBatch = 1000

// cancelRun cancels every pending question of a run that ended
// (docs/protocol.md#questions: the questions of a run that ends are cancelled), as the service: it reads
// them all, then settles them settleBatch to a commit (a run with 2,000
// pending ends in two commits, not 2,000), and wakes their waiters.
func (s *Questions) cancelRun(ctx context.Context, runID, reason string) {
	ctx = auth.WithPrincipal(context.WithoutCancel(ctx), auth.SystemPrincipal)
	var ids []string
	f := hitl.QuestionFilter{RunID: runID, Status: hitl.StatusPending, Limit: hitl.MaxPageSize}
	for {
		page, err := s.store.Questions(ctx, f)
		if err != nil {
			break // cancel what was read
		}
		for _, q := range page.Questions {
			ids = append(ids, q.ID)
		}
		if page.NextCursor == "" {
			break
		}
		f.Cursor = page.NextCursor
	}
	for len(ids) > 0 {
		batch := ids[:min(len(ids), settleBatch)]
		ids = ids[len(batch):]
		now := s.clock.Now()
		updated, _, err := s.store.UpdateQuestions(ctx, batch, s.hookQuestion(func(q *hitl.Question) (*hitl.Event, error) {
			if !q.Pending() {
				return nil, hitl.Conflict(q) // answered meanwhile
			}
			q.Status, q.RespondedBy, q.RespondedAt, q.CancelReason = hitl.StatusCancelled, auth.ActorSystem, &now, reason
			return hitl.NewQuestionEvent(hitl.EventQuestionCancelled, q, auth.ActorSystem, now), nil
		}))
		if err != nil {
			return
		}
		woken := false
		for _, q := range updated {
			if q != nil {
				s.notifier.Publish(q.ID)
				woken = true
			}
		}
		if woken {
			s.notifier.Publish(runKey(runID))
		}
	}
}

// runKey is the notifier key of a run's changes.
func runKey(id string) string { return "run\x00" + id }

// Publish records a loop:current message from the agent that runs the
// run: STATE updates what the run reports (registering the run on first
// use), DONE and ABORT end it and cancel its pending questions. Only the
// run's owner (or an admin) may publish for it (Access.AuthorizeRun). It returns the run's control state as a checkpoint,
// without handing anything over.
func (s *Runs) Publish(ctx context.Context, e steer.StateEvent) (hitl.Checkpoint, error) {
	return s.checkpoint(ctx, e, false)
}

// Checkpoint publishes the agent's STATE at an iteration boundary and
// returns what it must do: go on (taking a new model or instruction, once),
// wait (paused: call again, or WaitRun), or stop (cancelled).
func (s *Runs) Checkpoint(ctx context.Context, e steer.StateEvent) (hitl.Checkpoint, error) {
	e.Event = steer.StateRunning
	return s.checkpoint(ctx, e, true)
}

func (s *Runs) checkpoint(ctx context.Context, e steer.StateEvent, handover bool) (hitl.Checkpoint, error) {
	if e.Schema == 0 {
		e.Schema = steer.StateSchema
	}
	if err := e.Validate(); err != nil {
		return hitl.Checkpoint{}, err
	}
	p := auth.PrincipalFrom(ctx)
	if err := s.access.Authorize(p, auth.ActionAsk, nil); err != nil {
		return hitl.Checkpoint{}, s.guard.refused(ctx, p, auth.ActionReport, &hitl.Question{RunID: e.RunID}, err)
	}
	if err := s.guard.Throttle(ctx, hitl.LimitRuns); err != nil {
		return hitl.Checkpoint{}, err
	}
	var cp hitl.Checkpoint
	var ended bool
	var refusal error
	run, err := s.store.UpdateRun(ctx, e.RunID, s.hookRun(func(run *hitl.Run) (hitl.RunUpdate, error) {
		now := s.clock.Now()
		ended = false
		if refusal = s.access.AuthorizeRun(p, auth.ActionReport, e.RunID, run); refusal != nil {
			return hitl.RunUpdate{}, refusal
		}
		if run == nil {
			run = &hitl.Run{ID: e.RunID, CreatedAt: now, Control: steer.RunControl{Status: steer.RunRunning}}
		}
		r := *run
		if r.Asker == "" {
			r.Asker, r.AskerUser = p.ID, p.SlackUser
		}
		c := &r.Control
		if c.Status == "" {
			c.Status = steer.RunRunning // a run of questions becomes a loop
		}
		if !c.Status.Active() {
			cp = checkpointOf(&r, false)
			return hitl.RunUpdate{}, nil // it ended: the agent learns so, nothing changes
		}
		if e.UpdatedAt == "" {
			e.UpdatedAt = steer.Timestamp(now)
		}
		r.UpdatedAt = now
		switch e.Event {
		case steer.StateRunning:
			c.Absorb(&e, now)
		case steer.StateDone:
			c.Status, ended = steer.RunDone, true
		case steer.StateAbort:
			c.Status, c.Reason, ended = steer.RunAborted, e.Reason, true
		}
		cp = checkpointOf(&r, handover)
		if handover && c.Status == steer.RunRunning {
			c.NewModel, c.Instruction = "", ""
		}
		ev := e
		return hitl.RunUpdate{Run: &r, Events: []*hitl.Event{s.runStateEvent(&ev, p.ID, now)}}, nil
	}))
	if err != nil {
		if refusal != nil && err == refusal {
			return hitl.Checkpoint{}, s.guard.refused(ctx, p, auth.ActionReport, &hitl.Question{RunID: e.RunID}, err)
		}
		return hitl.Checkpoint{}, err
	}
	s.notifier.Publish(runKey(e.RunID))
	if ended {
		s.questions.cancelRun(ctx, e.RunID, "the run ended ("+string(run.Control.Status)+")")
	}
	cp.Threshold = s.thresholdOf(run)
	if run != nil {
		cp.Version = run.Version
	}
	return cp, nil
}

// Woken answers a checkpoint reporting e that was held while its run was
// paused, now that run (the record WaitRun returned, past the version the
// held checkpoint saw) woke it. When the report has nothing to record
// (Run.recordsNothing: still paused, ended, or resumed with nothing to
// hand over) it answers from run, committing nothing: a plain resume is
// one commit, the resume's. Otherwise it checkpoints again (Checkpoint):
// a new model or an instruction is handed over once, in the commit that
// takes it off the run. The principal in ctx is held to the rules of
// Checkpoint either way.
func (s *Runs) Woken(ctx context.Context, e steer.StateEvent, run *hitl.Run) (hitl.Checkpoint, error) {
	e.Event = steer.StateRunning
	if e.Schema == 0 {
		e.Schema = steer.StateSchema
	}
	if err := e.Validate(); err != nil {
		return hitl.Checkpoint{}, err
	}
	if run == nil || !run.RecordsNothing(&e) {
		return s.Checkpoint(ctx, e)
	}
	p := auth.PrincipalFrom(ctx)
	if err := s.access.AuthorizeRun(p, auth.ActionReport, e.RunID, run); err != nil { // the ask scope, then ownership
		return hitl.Checkpoint{}, s.guard.refused(ctx, p, auth.ActionReport, &hitl.Question{RunID: e.RunID}, err)
	}
	cp := checkpointOf(run, true)
	cp.Threshold, cp.Version = s.thresholdOf(run), run.Version
	return cp, nil
}

// checkpointOf is run's control state as the agent sees it; with handover
// it includes what waits to be handed over.
func checkpointOf(r *hitl.Run, handover bool) hitl.Checkpoint {
	c := r.Control
	cp := hitl.Checkpoint{RunID: r.ID, Status: c.Status, Model: c.Model, Reason: c.Reason}
	if handover && c.Status == steer.RunRunning {
		cp.NewModel, cp.Instruction = c.NewModel, c.Instruction
	}
	return cp
}

// WaitRun blocks until run id's record passes version after (a command,
// a report, a question changed it) or ctx ends, and returns the run as it
// is then.
func (s *Runs) WaitRun(ctx context.Context, id string, after uint64) (*hitl.Run, error) {
	for {
		ch, cancel := s.notifier.Watch(runKey(id)) // before the read: a change after it wakes us
		run, err := s.RunRecord(ctx, id)
		if err != nil || run.Version > after {
			cancel()
			return run, err
		}
		select {
		case <-ch:
			cancel()
		case <-ctx.Done():
			cancel()
			return run, ctx.Err()
		}
	}
}

// HoldWhilePaused holds a checkpoint while its run is paused: it waits
// for a resume or a cancel until wait ends (the caller's long poll), and
// answers the state then (Woken: a plain resume commits nothing more); the
// caller checks in again while the run is still paused. ctx is the
// request's and wait a child of it (the principal travels in both): the
// last read is not cut off by the end of the wait.
func (s *Runs) HoldWhilePaused(ctx, wait context.Context, e steer.StateEvent, cp hitl.Checkpoint) (hitl.Checkpoint, error) {
	for cp.Status == steer.RunPaused && wait.Err() == nil {
		run, err := s.WaitRun(wait, e.RunID, cp.Version)
		if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
			return cp, err
		}
		if wait.Err() != nil {
			break
		}
		if cp, err = s.Woken(ctx, e, run); err != nil {
			return cp, err
		}
	}
	return cp, nil
}

// Runs returns a page of runs (active ones, or all), for principals that
// may see every run.
func (s *Runs) Runs(ctx context.Context, active bool, limit int, cursor string) (hitl.RunPage, error) {
	p := auth.PrincipalFrom(ctx)
	if !p.Local && !p.SeesAll() && !p.Has(auth.ScopeControl) {
		return hitl.RunPage{}, s.guard.refused(ctx, p, auth.ActionRead, &hitl.Question{}, access.Lacks(p, auth.ScopeAnswer))
	}
	page, err := s.store.Runs(ctx, active, limit, cursor)
	if err != nil {
		return page, err
	}
	page.Handles = make(map[string]string, len(page.Runs))
	for _, r := range page.Runs {
		if page.Handles[r.ID], err = runhandle.Of(ctx, s.store, r.ID); err != nil {
			return page, err
		}
	}
	return page, nil
}

// RunsByPrefix returns up to limit runs whose id starts with prefix, in
// id order, ended ones too, for principals that may see every run.
func (s *Runs) RunsByPrefix(ctx context.Context, prefix string, limit int) ([]*hitl.Run, error) {
	p := auth.PrincipalFrom(ctx)
	if !p.Local && !p.SeesAll() && !p.Has(auth.ScopeControl) {
		return nil, s.guard.refused(ctx, p, auth.ActionRead, &hitl.Question{}, access.Lacks(p, auth.ScopeAnswer))
	}
	if err := steer.ValidateRunID(prefix); err != nil {
		return nil, err
	}
	return s.store.RunsByPrefix(ctx, prefix, max(1, min(limit, hitl.MaxPageSize)))
}

var _ hitl.RunService = (*Runs)(nil)
