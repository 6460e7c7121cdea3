package service

import (
	"context"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/steer"
)

// Hook records one hook call of a coding-agent session for the principal
// in ctx and returns what the call does (SessionStep): the run is started
// at its first call (SessionStart, or whatever call comes first when the
// hooks were wired mid-session), kept alive by every call (a session
// shown idle wakes), and ended by SessionEnd (DONE on loop:current). A
// session that ended on its own comes back when the agent resumes it. A
// redirect handed over with the step is taken off the run in the same
// transaction: it reaches the agent once. Only the run's owner (or an
// admin) reports on it, as for a loop's checkpoints.
func (s *Runs) Hook(ctx context.Context, h steer.SessionHook) (steer.HookStep, error) {
	if err := h.Validate(); err != nil {
		return steer.HookStep{}, err
	}
	p := auth.PrincipalFrom(ctx)
	if err := s.access.Authorize(p, auth.ActionAsk, nil); err != nil {
		return steer.HookStep{}, s.guard.refused(ctx, p, auth.ActionReport, &hitl.Question{RunID: h.RunID}, err)
	}
	if err := s.guard.Throttle(ctx, hitl.LimitRuns); err != nil {
		return steer.HookStep{}, err
	}
	var step steer.HookStep
	var ended bool
	var refusal error
	run, err := s.store.UpdateRun(ctx, h.RunID, s.hookRun(func(run *hitl.Run) (hitl.RunUpdate, error) {
		now := s.clock.Now()
		ended = false
		if refusal = s.access.AuthorizeRun(p, auth.ActionReport, h.RunID, run); refusal != nil {
			return hitl.RunUpdate{}, refusal
		}
		var evs []*hitl.Event
		state := func(r *hitl.Run, typ steer.StateEventType, reason string) {
			evs = append(evs, s.runStateEvent(r.StateEventOf(typ, reason, now), p.ID, now))
		}
		r := hitl.Run{ID: h.RunID, CreatedAt: now}
		if run != nil {
			r = *run
		}
		if r.Asker == "" {
			r.Asker, r.AskerUser = p.ID, p.SlackUser
		}
		c := &r.Control
		sess := steer.Session{Agent: h.Agent}
		if c.Session != nil {
			sess = *c.Session
		}
		before := sess
		c.Session = &sess
		changed := run == nil || run.Control.Session == nil || c.Status == ""
		if c.Status == "" {
			c.Status = steer.RunRunning // a run of questions becomes a session
		}
		if c.Revives(h.Event) {
			c.Status, c.Reason, c.CancelledBy, changed = steer.RunRunning, "", "", true
		}
		step = steer.SessionStep(*c, h.Event, h.HoldExpired)
		step.RunID = r.ID
		if c.Status.Ended() {
			return hitl.RunUpdate{}, nil // the agent learns it ended; nothing changes
		}
		r.UpdatedAt, c.LastStateAt = now, &now
		if c.Mode == "" {
			c.Mode = h.Agent
		}
		if h.Model != "" && !c.Escalated {
			c.Model = h.Model
		}
		if h.CWD != "" {
			sess.CWD = h.CWD
		}
		if h.AgentVersion != "" {
			sess.AgentVersion = h.AgentVersion
		}
		if sess.Title == "" && h.Event == steer.HookUserPromptSubmit {
			sess.Title = title(h.Prompt)
		}
		sess.Idle, sess.Held = false, ""
		switch step.Action {
		case steer.HookHold:
			sess.Held = h.Event
		case steer.HookInstruct, steer.HookKeepGoing:
			c.Instruction, changed = "", true
		case steer.HookEnd:
			c.Status, ended = steer.RunDone, true
			state(&r, steer.StateDone, "")
			return hitl.RunUpdate{Run: &r, Events: evs}, nil
		}
		if changed || sess != before {
			state(&r, steer.StateRunning, "")
		}
		return hitl.RunUpdate{Run: &r, Events: evs}, nil
	}))
	if err != nil {
		if refusal != nil && err == refusal {
			return steer.HookStep{}, s.guard.refused(ctx, p, auth.ActionReport, &hitl.Question{RunID: h.RunID}, err)
		}
		return steer.HookStep{}, err
	}
	s.notifier.Publish(runKey(h.RunID))
	if ended {
		s.questions.cancelRun(ctx, h.RunID, "the session ended")
	}
	if run != nil {
		step.Version = run.Version
	}
	return step, nil
}

// SweepSessions shows silent sessions idle and ends those silent for
// longer (Idleness), and reports how many it changed. It reads the active
// runs at most once per tenth of the idle time (at least a second apart),
// and writes only what is due: an idle service writes nothing.
func (s *Runs) SweepSessions(ctx context.Context) (int, error) {
	t := s.sessions
	if t.IdleAfter <= 0 && t.EndAfter <= 0 {
		return 0, nil
	}
	now := s.clock.Now()
	s.sessionSweep.Lock()
	if now.Before(s.nextSessionSweep) {
		s.sessionSweep.Unlock()
		return 0, nil
	}
	every := max(min(nonZero(t.IdleAfter, t.EndAfter), nonZero(t.EndAfter, t.IdleAfter))/10, time.Second)
	s.nextSessionSweep = now.Add(every)
	s.sessionSweep.Unlock()
	ctx = auth.WithPrincipal(ctx, auth.SystemPrincipal)
	n, cursor := 0, ""
	for {
		page, err := s.store.Runs(ctx, true, hitl.MaxPageSize, cursor)
		if err != nil {
			return n, err
		}
		for _, r := range page.Runs {
			if r.Control.Idleness(now, t.IdleAfter, t.EndAfter) == steer.SessionAwake {
				continue
			}
			changed, err := s.quieten(ctx, r.ID)
			if err != nil {
				return n, err
			}
			if changed {
				n++
			}
		}
		if cursor = page.NextCursor; cursor == "" {
			return n, nil
		}
	}
}

func nonZero(d, or time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return or
}

// quieten shows run id idle or ends it, as Idleness says now.
func (s *Runs) quieten(ctx context.Context, id string) (bool, error) {
	var ended, changed bool
	_, err := s.store.UpdateRun(ctx, id, s.hookRun(func(run *hitl.Run) (hitl.RunUpdate, error) {
		now := s.clock.Now()
		ended, changed = false, false
		if run == nil {
			return hitl.RunUpdate{}, nil
		}
		r := *run
		c := &r.Control
		var ev *steer.StateEvent
		switch c.Idleness(now, s.sessions.IdleAfter, s.sessions.EndAfter) {
		case steer.SessionAwake:
			return hitl.RunUpdate{}, nil
		case steer.SessionIdle:
			sess := *c.Session
			sess.Idle = true
			c.Session = &sess
			ev = r.StateEventOf(steer.StateRunning, "", now)
		case steer.SessionGone:
			c.Status, c.Reason, c.Instruction = steer.RunAborted, steer.ReasonIdle, ""
			ev, ended = r.StateEventOf(steer.StateAbort, steer.ReasonIdle, now), true
		}
		r.UpdatedAt, changed = now, true
		return hitl.RunUpdate{Run: &r, Events: []*hitl.Event{s.runStateEvent(ev, auth.ActorSystem, now)}}, nil
	}))
	if err != nil {
		return false, err
	}
	if changed {
		s.notifier.Publish(runKey(id))
	}
	if ended {
		s.questions.cancelRun(ctx, id, "the session was silent for "+s.sessions.EndAfter.String())
	}
	return changed, nil
}

// LetGo records that the hook call held at version of run id (Hook's
// HookHold, whose step carried that Version) went away while held: the
// agent killed the hook, or its wait ran out. The held mark is cleared
// (with a STATE event, so the live message stops showing the session
// held) unless the run changed since: a resume let the call go, another
// call holds, or the run ended. Only who may report on the run (its
// owner, or an admin) lets go of its calls, as for Hook.
func (s *Runs) LetGo(ctx context.Context, id string, version uint64) error {
	p := auth.PrincipalFrom(ctx)
	if err := s.access.Authorize(p, auth.ActionAsk, nil); err != nil {
		return s.guard.refused(ctx, p, auth.ActionReport, &hitl.Question{RunID: id}, err)
	}
	var changed bool
	var refusal error
	_, err := s.store.UpdateRun(ctx, id, s.hookRun(func(run *hitl.Run) (hitl.RunUpdate, error) {
		changed = false
		if run == nil || run.Version != version || run.Control.Session == nil || run.Control.Session.Held == "" {
			return hitl.RunUpdate{}, nil
		}
		if refusal = s.access.AuthorizeRun(p, auth.ActionReport, id, run); refusal != nil {
			return hitl.RunUpdate{}, refusal
		}
		now := s.clock.Now()
		r := *run
		sess := *r.Control.Session
		sess.Held = ""
		r.Control.Session, r.UpdatedAt, changed = &sess, now, true
		ev := s.runStateEvent(r.StateEventOf(steer.StateRunning, "", now), p.ID, now)
		return hitl.RunUpdate{Run: &r, Events: []*hitl.Event{ev}}, nil
	}))
	if err != nil {
		if refusal != nil && err == refusal {
			return s.guard.refused(ctx, p, auth.ActionReport, &hitl.Question{RunID: id}, err)
		}
		return err
	}
	if changed {
		s.notifier.Publish(runKey(id))
	}
	return nil
}
