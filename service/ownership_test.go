package service_test

import (
	"context"
	"sync"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// More principals of the run-ownership table.
var (
	ctlOnly  = auth.TokenPrincipal("ctl", []auth.Scope{auth.ScopeControl}, "")
	askCtl   = auth.TokenPrincipal("askctl", []auth.Scope{auth.ScopeAsk, auth.ScopeControl}, "")
	alice2   = auth.TokenPrincipal("alice-ci", []auth.Scope{auth.ScopeAsk}, "U0ALICE") // alice's other token
	localAl  = auth.LocalPrincipal("alice")
	localBob = auth.LocalPrincipal("bob")
)

// runActs does act to run as p through the root service: every edge's
// call lands here.
func runAct(svc *service.Service, p auth.Principal, act, run string) error {
	ctx := auth.WithPrincipal(context.Background(), p)
	var err error
	switch act {
	case "ask":
		_, _, err = svc.Questions.Create(ctx, run, hitl.NewQuestion{Question: "Mine now?"})
	case "STATE":
		_, err = svc.Runs.Publish(ctx, steer.StateEvent{Event: steer.StateRunning, RunID: run, Stack: []steer.StackEntry{{ID: run, Iter: 3}}})
	case "ABORT":
		_, err = svc.Runs.Publish(ctx, steer.StateEvent{Event: steer.StateAbort, RunID: run, Reason: "taken over"})
	case "checkpoint":
		_, err = svc.Runs.Checkpoint(ctx, steer.StateEvent{RunID: run, Stack: []steer.StackEntry{{ID: run, Iter: 3}}})
	case "read":
		_, err = svc.Runs.RunRecord(ctx, run)
	case "read questions":
		_, err = svc.Questions.QuestionPage(ctx, hitl.QuestionFilter{RunID: run})
	case "run state":
		_, err = svc.Runs.RunState(ctx, run)
	case "wait":
		_, err = svc.Runs.WaitRun(ctx, run, 0)
	case "threshold", "threshold 3":
		n := 0
		if act == "threshold 3" {
			n = 3
		}
		_, err = svc.Runs.SetThreshold(ctx, run, &n)
	default:
		panic(act)
	}
	return err
}

// TestRunOwnershipTable runs principal × action on a run started by its
// owner: a run belongs to whoever started it (first question, checkpoint
// or STATE); control and admin keep their rights; the same person is one
// owner.
func TestRunOwnershipTable(t *testing.T) {
	type row struct {
		owner auth.Principal
		start string // how the owner started the run
		p     auth.Principal
		act   string
		allow bool
	}
	var rows []row
	agentActs := []string{"ask", "STATE", "ABORT", "checkpoint", "read", "read questions", "run state", "wait", "threshold"}
	for _, act := range agentActs {
		for _, start := range []string{"ask", "checkpoint", "STATE", "threshold 3"} {
			rows = append(rows,
				row{asker, start, asker, act, true},  // the owner
				row{asker, start, other, act, false}, // another agent: 403 on everything
			)
		}
		rows = append(rows,
			row{alice, "ask", alice2, act, true},        // a token with alice's slack_user is alice
			row{alice2, "checkpoint", alice, act, true}, // both ways
			row{localAl, "ask", localBob, act, true},    // tokenless: the machine is one person
			row{asker, "ask", admin, act, true},         // admin holds every right
		)
	}
	// Control and answer scopes read and (control) set the threshold;
	// they do not ask, report or checkpoint in another's run.
	for act, allow := range map[string]bool{"read": true, "wait": true, "threshold": true, "ask": false, "STATE": false, "checkpoint": false} {
		rows = append(rows, row{asker, "ask", askCtl, act, allow})
	}
	for act, allow := range map[string]bool{"read": true, "wait": true, "threshold": true, "STATE": false} {
		rows = append(rows, row{asker, "ask", ctlOnly, act, allow})
	}
	for act, allow := range map[string]bool{"read": true, "read questions": true, "run state": true, "wait": true, "threshold": false, "ask": false} {
		rows = append(rows, row{asker, "ask", answerer, act, allow})
	}
	for _, r := range rows {
		name := r.p.ID + " " + r.act + " in a run " + r.owner.ID + " started by " + r.start
		t.Run(name, func(t *testing.T) {
			svc := service.NewService(memstore.New(), service.ServiceConfig{Notifier: notify.New(), Clock: clocktest.New(t0)})
			require.NoError(t, runAct(svc, r.owner, r.start, "run-1"), "the owner starts the run")
			before := refusals(t, svc)
			err := runAct(svc, r.p, r.act, "run-1")
			if r.allow {
				require.NoError(t, err)
				return
			}
			require.Equal(t, fault.EFORBIDDEN, fault.Code(err), "%v", err)
			assert.Contains(t, fault.Message(err), r.p.ID)
			assert.Equal(t, before+1, refusals(t, svc), "the refusal is audited")
			run, err := svc.Runs.RunRecord(auth.WithPrincipal(context.Background(), admin), "run-1")
			require.NoError(t, err)
			assert.Equal(t, r.owner.ID, run.Asker, "the run stays its owner's")
			if th := run.Control.Threshold; th != nil {
				assert.Equal(t, 3, *th, "nothing changed")
			}
			assert.NotEqual(t, steer.RunAborted, run.Control.Status, "nothing changed")
			assert.LessOrEqual(t, run.Questions, 1, "nothing asked")
		})
	}
}

// refusals counts the audited refusals.
func refusals(t *testing.T, svc *service.Service) int {
	t.Helper()
	evs, _, err := svc.Log.Events(auth.WithPrincipal(context.Background(), admin), 0, 0)
	require.NoError(t, err)
	n := 0
	for _, ev := range evs {
		if ev.Type == hitl.EventRefused {
			n++
		}
	}
	return n
}

// TestDefaultRunsCannotBeTakenFirst: a run id NAME@PRINCIPAL is reserved
// for that principal (and the same person): another cannot start it, so
// it cannot lock the owner out or read what the owner asks there.
func TestDefaultRunsCannotBeTakenFirst(t *testing.T) {
	for _, tc := range []struct {
		name  string
		run   string
		p     auth.Principal
		allow bool
	}{
		{"another agent cannot ask first in alice's default run", hitl.DefaultRunID("cli-alice", alice), other, false},
		{"nor checkpoint it", hitl.DefaultRunID("mcp-alice", alice), other, false},
		{"nor set its threshold", hitl.DefaultRunID("cli-alice", alice), other, false},
		{"alice starts her own", hitl.DefaultRunID("cli-alice", alice), alice, true},
		{"a run reserved for alice's Slack user is hers from any of her tokens", "cli@slack:U0ALICE", alice2, true},
		{"but not another's", "cli@slack:U0ALICE", other, false},
		{"local principals are one person", hitl.DefaultRunID("cli", localAl), localBob, true},
		{"a token name with '@' is still reserved", "cli@api:ci@corp", other, false},
		{"an '@' that names no principal reserves nothing", "deploy@v2", other, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, act := range []string{"ask", "checkpoint", "STATE", "threshold"} {
				svc := service.NewService(memstore.New(), service.ServiceConfig{Notifier: notify.New(), Clock: clocktest.New(t0)})
				err := runAct(svc, tc.p, act, tc.run)
				if tc.allow {
					require.NoError(t, err, act)
					continue
				}
				require.Equal(t, fault.EFORBIDDEN, fault.Code(err), "%s: %v", act, err)
				assert.Contains(t, fault.Message(err), "is reserved for")
				_, err = svc.Runs.RunRecord(auth.WithPrincipal(context.Background(), admin), tc.run)
				assert.Equal(t, fault.ENOTFOUND, fault.Code(err), "nothing was stored")
			}
		})
	}
	t.Run("approvals without a run go to the principal's own", func(t *testing.T) {
		svc := service.NewService(memstore.New(), service.ServiceConfig{Notifier: notify.New(), Clock: clocktest.New(t0)})
		out, err := svc.Policies.RequestOperation(auth.WithPrincipal(context.Background(), asker),
			hitl.ApprovalRequest{Operation: hitl.Operation{Type: "shell", Resource: "rm -rf build", Description: "clean"}})
		require.NoError(t, err)
		if out.Question != nil {
			assert.Equal(t, "approvals@api:ci", out.Question.RunID)
		}
		owner, ok := hitl.RunOwnerOf("approvals@api:ci")
		assert.True(t, ok)
		assert.Equal(t, "api:ci", owner)
	})
}

// TestRunOwnerRace: of principals starting the same run at once, exactly
// one owns it, and every other is refused.
func TestRunOwnerRace(t *testing.T) {
	ps := []auth.Principal{asker, other, auth.TokenPrincipal("third", nil, ""), auth.TokenPrincipal("fourth", nil, "")}
	// Every principal reads the run as unowned before any claims it: the
	// barrier holds each create until all have called it (or finished
	// without), so the create itself must decide, in its transaction.
	b := &runBarrier{Store: memstore.New(), n: len(ps)}
	b.cond = sync.NewCond(&b.mu)
	svc := service.NewService(b, service.ServiceConfig{Notifier: notify.New(), Clock: clocktest.New(t0)})
	errs := make(chan error, len(ps))
	for _, p := range ps {
		go func() {
			err := runAct(svc, p, "ask", "contested")
			b.finished()
			errs <- err
		}()
	}
	ok := 0
	for range ps {
		if err := <-errs; err == nil {
			ok++
		} else {
			require.Equal(t, fault.EFORBIDDEN, fault.Code(err))
		}
	}
	assert.Equal(t, 1, ok, "one principal started the run")
	assert.GreaterOrEqual(t, b.entered, len(ps), "every principal tried to claim the unowned run")
	run, err := svc.Runs.RunRecord(auth.WithPrincipal(context.Background(), admin), "contested")
	require.NoError(t, err)
	assert.Equal(t, 1, run.Questions, "only the owner's question is in it")
}

// runBarrier holds each of n goroutines' write that starts the run (the
// question's create, which decides who owns the run in its transaction)
// until each has made one or finished.
type runBarrier struct {
	hitl.Store
	n             int
	mu            sync.Mutex
	cond          *sync.Cond
	entered, done int
}

func (b *runBarrier) CreateQuestion(ctx context.Context, q *hitl.Question, ev *hitl.Event, admit func(*hitl.Run) error) (*hitl.Question, bool, error) {
	b.mu.Lock()
	b.entered++
	b.cond.Broadcast()
	for b.entered+b.done < b.n {
		b.cond.Wait()
	}
	b.mu.Unlock()
	return b.Store.CreateQuestion(ctx, q, ev, admit)
}

func (b *runBarrier) finished() {
	b.mu.Lock()
	b.done++
	b.cond.Broadcast()
	b.mu.Unlock()
}
