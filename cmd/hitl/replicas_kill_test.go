package main

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/internal/pgtest"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// killLoad records what the API acknowledged during the kill test, and
// the operations whose outcome the client could not know (the replica
// died with the request in flight): those are checked only for being
// one thing or the other.
type killLoad struct {
	mu        sync.Mutex
	created   map[string]string // question id → text
	answered  map[string]string // question id → answer
	cancelled map[string]bool
	timed     map[string]bool   // asked with a one-second timeout, left alone
	learned   map[string]bool   // commands an "always allow" taught
	steered   map[string]string // run → the last acknowledged command's status
	uncertain map[string]bool   // runs or questions with an unknown last write
	unknown   int               // calls that failed after the kill
	count     int
	errs      []error
}

func (l *killLoad) ack(record func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	record()
	l.count++
}

func (l *killLoad) acked() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.count
}

// TestReplicaKilledUnderLoad runs three replicas on one database, one of
// them a child process, with clients listing all three in HITL_URL; the
// child is killed (SIGKILL) in the middle of a concurrent load of asks,
// answers, cancels, timeouts, steering and policy learning, and the load
// goes on through the other two. Afterwards everything the API
// acknowledged is in the database, every question was posted to Slack
// exactly once, and every question that timed out did so once.
//
// All three run Slack: the child may die holding a channel's claim, with
// a post in flight; a survivor takes the channel over after the lease
// and does not post again what the child posted (see
// TestReplicaTakesOverAPostInFlight for that moment made certain).
func TestReplicaKilledUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a replica in a child process")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	url, key := pgtest.DB(t), keyFile(t)
	srv := slackfake.New(t, slackfake.FailOnReject())
	child := startChildReplica(t, ctx, url, key, childSlackEnv(srv.AppToken(), srv.BotToken(), srv.APIURL(), testChannel)...)
	r1 := startReplica(t, url, key, withSlack(srv), replicaTuning)
	r2 := startReplica(t, url, key, withSlack(srv), replicaTuning)
	require.NoError(t, srv.WaitConnected(ctx, 3))

	const workers, beforeKill, afterKill = 6, 300, 200
	l := &killLoad{created: map[string]string{}, answered: map[string]string{}, cancelled: map[string]bool{}, timed: map[string]bool{},
		learned: map[string]bool{}, steered: map[string]string{}, uncertain: map[string]bool{}}
	var killed atomic.Bool
	loadCtx, stopLoad := context.WithCancel(ctx)
	defer stopLoad()
	var wg sync.WaitGroup
	for w := range workers {
		// Each client lists the three replicas, the child first for half
		// of them: those fail over when it dies.
		urls := []string{child.url, r1.URL(), r2.URL()}
		if w%2 == 1 {
			urls = []string{r1.URL(), r2.URL(), child.url}
		}
		c := client.NewClient(strings.Join(urls, ","), "", client.WithUser("kill-test"))
		run := fmt.Sprintf("kill-w%d", w)
		if _, err := c.Publish(ctx, steer.StateEvent{Schema: steer.StateSchema, Event: steer.StateRunning, RunID: run,
			Stack: []steer.StackEntry{{ID: run, Mode: "issue", Iter: 1, Max: 10, Model: "haiku"}}}); err != nil {
			t.Fatalf("starting run %s: %v", run, err)
		}
		wg.Go(func() {
			for i := 0; loadCtx.Err() == nil; i++ {
				err := killLoadStep(loadCtx, c, l, w, i)
				if err == nil || loadCtx.Err() != nil {
					continue
				}
				l.mu.Lock()
				if killed.Load() {
					l.unknown++ // the call in flight when the replica died
				} else {
					l.errs = append(l.errs, fmt.Errorf("worker %d step %d: %w", w, i, err))
				}
				l.mu.Unlock()
			}
		})
	}
	loadDone := make(chan struct{})
	go func() { wg.Wait(); close(loadDone) }()
	untilAcked := func(n int) {
		t.Helper()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for l.acked() < n {
			select {
			case <-tick.C:
			case <-loadDone:
				return
			case <-ctx.Done():
				t.Fatalf("the load acknowledged %d of %d operations in time", l.acked(), n)
			}
		}
	}
	untilAcked(beforeKill)
	killed.Store(true)
	child.kill(t)
	atKill := l.acked()
	untilAcked(atKill + afterKill)
	stopLoad()
	<-loadDone

	l.mu.Lock()
	defer l.mu.Unlock()
	require.Empty(t, l.errs, "the load failed before the kill; the child said:\n%s", child.log.String())
	require.GreaterOrEqual(t, l.count, atKill+afterKill, "the load did not go on after the kill")
	assert.LessOrEqual(t, l.unknown, workers, "each client has at most one call in flight when the replica dies; the rest fail over")
	t.Logf("%d acknowledged before the kill, %d after; %d calls in flight at the kill failed; %d questions, %d answered, %d cancelled, %d timed, %d rules learned, %d runs steered",
		atKill, l.count-atKill, l.unknown, len(l.created), len(l.answered), len(l.cancelled), len(l.timed), len(l.learned), len(l.steered))

	bg := context.Background()
	t.Run("every acknowledged question, answer and cancel is stored", func(t *testing.T) {
		for id, text := range l.created {
			q, err := r1.DB.Question(bg, id)
			require.NoError(t, err, "acknowledged question %s", id)
			assert.Equal(t, text, q.Question)
			if want, ok := l.answered[id]; ok {
				assert.Equal(t, hitl.StatusAnswered, q.Status, "question %s", id)
				if assert.NotNil(t, q.Response, "question %s", id) {
					assert.Equal(t, want, q.Response.Value, "question %s", id)
				}
			}
			if l.cancelled[id] {
				assert.Equal(t, hitl.StatusCancelled, q.Status, "question %s", id)
			}
		}
	})
	t.Run("the audit trail is one chain that verifies, with every acknowledged question and answer", func(t *testing.T) {
		checkCrashAudit(t, r1.DB, l.created, l.answered)
	})
	t.Run("every acknowledged steering command is in force", func(t *testing.T) {
		for run, status := range l.steered {
			if l.uncertain[run] {
				continue // a later command's outcome is unknown
			}
			r, err := r2.DB.Run(bg, run)
			require.NoError(t, err, run)
			assert.Equal(t, steer.RunStatus(status), r.Control.Status, "run %s", run)
		}
	})
	t.Run("every rule an acknowledged answer taught allows", func(t *testing.T) {
		require.NotEmpty(t, l.learned, "the load taught no rule")
		c := client.NewClient(r2.URL(), "", client.WithUser("kill-test"))
		for cmd := range l.learned {
			d, err := c.CheckOperation(bg, hitl.ApprovalRequest{Operation: hitl.Operation{Type: hitl.OpShell, Description: "check", Resource: cmd}})
			require.NoError(t, err, cmd)
			assert.Equal(t, hitl.EffectAllow, d.Effect, "learned %s was lost", cmd)
		}
	})
	t.Run("every timed question timed out once, and no other did", func(t *testing.T) {
		require.NotEmpty(t, l.timed, "the load asked no timed question")
		for id := range l.timed {
			untilStatus(t, ctx, r1, id, hitl.StatusTimeout)
		}
		timeouts := map[string]int{}
		for after := uint64(0); ; {
			evs, err := r1.DB.Events(bg, after, 1000)
			require.NoError(t, err)
			if len(evs) == 0 {
				break
			}
			for _, ev := range evs {
				if ev.Type == hitl.EventQuestionTimeout {
					timeouts[ev.QuestionID]++
				}
			}
			after = evs[len(evs)-1].Seq
		}
		for id := range l.timed {
			assert.Equal(t, 1, timeouts[id], "question %s timed out %d times", id, timeouts[id])
		}
		for id, n := range timeouts {
			if l.timed[id] {
				continue
			}
			// A timed ask whose create the client never saw acknowledged
			// (in flight at the kill, or when the load stopped) exists and
			// times out too: once.
			q, err := r1.DB.Question(bg, id)
			require.NoError(t, err)
			assert.True(t, strings.HasSuffix(q.Question, timedText), "question %s (%q) was not asked to time out, yet timed out", id, q.Question)
			assert.Equal(t, 1, n, "question %s timed out %d times", id, n)
		}
	})
	t.Run("every question was posted to Slack once", func(t *testing.T) {
		untilDrained(t, ctx, r1)
		posts := map[string]int{}
		for _, c := range srv.Calls("chat.postMessage") {
			if !c.OK {
				continue
			}
			// A pending question's message names it in its inputs' block
			// id, a settled one's in its context: one question a message.
			if id := postedQuestionID.FindString(c.Params.Get("blocks")); id != "" {
				posts[id]++
			}
		}
		stored := 0
		for page, cursor := 0, ""; page == 0 || cursor != ""; page++ {
			p, err := r1.DB.Questions(bg, hitl.QuestionFilter{Limit: hitl.MaxPageSize, Cursor: cursor})
			require.NoError(t, err)
			for _, q := range p.Questions {
				stored++
				assert.Equal(t, 1, posts[q.ID], "question %s (%s) posted %d times", q.ID, q.Status, posts[q.ID])
			}
			cursor = p.NextCursor
		}
		assert.Equal(t, stored, len(posts), "posts name only stored questions")
		assert.GreaterOrEqual(t, stored, len(l.created))
	})
}

// timedText ends the questions the load asks with a one-second timeout.
const timedText = "anyone there?"

// postedQuestionID finds a question id in a message's blocks.
var postedQuestionID = regexp.MustCompile(`q_[0-9a-z]{16}`)

// killLoadStep is one operation of worker w's load, chosen by i.
func killLoadStep(ctx context.Context, c *client.Client, l *killLoad, w, i int) error {
	run := fmt.Sprintf("kill-w%d", w)
	switch i % 6 {
	case 0, 1: // ask, then answer
		text := fmt.Sprintf("w%d q%d: what should the release notes say?", w, i)
		q, _, err := c.Create(ctx, run, hitl.NewQuestion{Question: text})
		if err != nil {
			return err
		}
		l.ack(func() { l.created[q.ID] = text })
		answer := fmt.Sprintf("notes %d-%d", w, i)
		l.mu.Lock()
		l.uncertain[q.ID] = true
		l.mu.Unlock()
		got, err := c.Answer(ctx, q.ID, hitl.Response{Value: answer})
		if err != nil {
			return err
		}
		if got.Status != hitl.StatusAnswered || got.Response == nil || got.Response.Value != answer {
			return fmt.Errorf("answer to %s acknowledged as %s %+v", q.ID, got.Status, got.Response)
		}
		l.ack(func() { l.answered[q.ID] = answer; delete(l.uncertain, q.ID) })
	case 2: // ask, then cancel
		text := fmt.Sprintf("w%d q%d: deploy to staging?", w, i)
		q, _, err := c.Create(ctx, run, hitl.NewQuestion{Question: text, Type: hitl.Approval})
		if err != nil {
			return err
		}
		l.ack(func() { l.created[q.ID] = text })
		got, err := c.Cancel(ctx, q.ID, "superseded")
		if err != nil {
			return err
		}
		if got.Status != hitl.StatusCancelled {
			return fmt.Errorf("cancel of %s acknowledged as %s", q.ID, got.Status)
		}
		l.ack(func() { l.cancelled[q.ID] = true })
	case 3: // ask with a one-second timeout: a sweeper times it out
		text := fmt.Sprintf("w%d q%d: %s", w, i, timedText)
		second := 1.0 / 60
		q, _, err := c.Create(ctx, run, hitl.NewQuestion{Question: text, TimeoutMinutes: &second})
		if err != nil {
			return err
		}
		l.ack(func() { l.created[q.ID] = text; l.timed[q.ID] = true })
	case 4: // steer the worker's run: pause, then resume
		cmd, want := steer.CommandPause, steer.RunPaused
		if (i/6)%2 == 1 {
			cmd, want = steer.CommandResume, steer.RunRunning
		}
		l.mu.Lock()
		l.uncertain[run] = true
		l.mu.Unlock()
		msgs, err := c.Control(ctx, steer.NewRequest(fmt.Sprintf("kill-%d-%d", w, i), cmd, run, time.Now(), steer.ControlPayload{}))
		if err != nil {
			return err
		}
		if len(msgs) != 2 || msgs[1].Payload.Status != steer.ResultSuccess {
			if code, _ := msgs[len(msgs)-1].Failed(); code == "duplicate" {
				return errors.New("the request was in flight on the replica that died")
			}
			return fmt.Errorf("%s %s: %+v", cmd, run, msgs)
		}
		l.ack(func() { l.steered[run] = string(want); delete(l.uncertain, run) })
	case 5: // policy learning: "always allow" teaches a rule
		cmd := fmt.Sprintf("make target-%d-%d", w, i)
		if err := teach(ctx, c, hitl.Operation{Type: hitl.OpShell, Description: "kill " + cmd, Resource: cmd}, run); err != nil {
			return err
		}
		l.ack(func() { l.learned[cmd] = true })
	}
	return nil
}

// untilStatus waits until question id has status want, woken by m's
// notifier.
func untilStatus(t *testing.T, ctx context.Context, m *Main, id string, want hitl.Status) {
	t.Helper()
	for {
		changed := m.Service.Log.Changed()
		q, err := m.DB.Question(ctx, id)
		require.NoError(t, err)
		if q.Status == want {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("question %s is %s, never %s", id, q.Status, want)
		}
	}
}
