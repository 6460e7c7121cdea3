package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serveCrashChildEnv makes TestServeCrashChild run `hitl serve`; without it
// the child test skips.
const serveCrashChildEnv = "HITL_CRASH_CHILD"

// listeningPrefix starts the line `hitl serve` prints on stderr once it
// accepts connections.
const listeningPrefix = "hitl listening on "

// crashQuestion is what the load asked and the API acknowledged.
type crashQuestion struct {
	job, text, key string
	rtype          hitl.ResponseType
}

// crashAcks records the operations the API acknowledged, and only those.
type crashAcks struct {
	mu       sync.Mutex
	created  map[string]crashQuestion // question id → what was asked
	answered map[string]any           // question id → normalised value
	// learned are commands a person's acknowledged "always allow" taught;
	// revoking those whose revoke was sent, revoked those acknowledged.
	learned, revoking, revoked map[string]bool
	count                      int
	errs                       []error // failures before the kill: the test fails with them
	limit                      int
	reached                    chan struct{} // closed at limit acknowledgements
}

func (a *crashAcks) ack(record func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	record()
	a.count++
	if a.count == a.limit {
		close(a.reached)
	}
}

func (a *crashAcks) fail(err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.errs = append(a.errs, err)
}

// TestServeCrash kills `hitl serve` (SIGKILL, no chance to clean up) while
// agents are asking and answering over HTTP, then checks that everything
// the API acknowledged is in the file and that the service restarts on it.
func TestServeCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("runs hitl serve in a child process")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	path := filepath.Join(t.TempDir(), "hitl.db")

	// The child: this test binary running TestServeCrashChild, which runs
	// `hitl serve` exactly as the command does. CommandContext kills it if
	// the deadline passes.
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestServeCrashChild$")
	cmd.Env = append(os.Environ(),
		serveCrashChildEnv+"=1", "HITL_DB="+path, "HITL_LISTEN=127.0.0.1:0",
		// Keep the child hermetic: no config file, tokens or Slack from the
		// environment running the tests.
		"HITL_CONFIG=", "HITL_TOKENS=", "HITL_RATE_TOKEN_PER_MINUTE=0", "HITL_RATE_RUN_PER_MINUTE=0", "HITL_RATE_POLICY_PER_MINUTE=0", "SLACK_APP_TOKEN=", "SLACK_BOT_TOKEN=")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderrPipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() }) // a no-op once it was waited for

	// Read the child's stderr until it ends: the listening line gives the
	// URL, the rest is kept for failure messages.
	var childLog syncBuffer
	urlc := make(chan string, 1)
	stderrDone := make(chan struct{})
	go func() {
		defer close(stderrDone)
		sc := bufio.NewScanner(stderrPipe)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(&childLog, line)
			if rest, ok := strings.CutPrefix(line, listeningPrefix); ok {
				u, _, _ := strings.Cut(rest, ", ")
				select {
				case urlc <- u:
				default:
				}
			}
		}
	}()
	var url string
	select {
	case url = <-urlc:
	case <-stderrDone:
		_ = cmd.Wait()
		t.Fatalf("hitl serve ended without listening:\n%s%s", childLog.String(), stdout.String())
	case <-ctx.Done():
		t.Fatalf("hitl serve did not listen in time:\n%s", childLog.String())
	}
	require.True(t, strings.HasPrefix(url, "http://127.0.0.1:"), "listening line gives %q", url)

	// The load: agents asking and answering until the kill. An operation
	// is recorded only once the API returned success.
	const workers, killAfter = 8, 400
	acks := &crashAcks{created: map[string]crashQuestion{}, answered: map[string]any{}, limit: killAfter, reached: make(chan struct{}),
		learned: map[string]bool{}, revoking: map[string]bool{}, revoked: map[string]bool{}}
	var killed atomic.Bool
	loadCtx, stopLoad := context.WithCancel(ctx)
	defer stopLoad()
	c := client.NewClient(url, "", client.WithUser("crash-test"))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := 0; loadCtx.Err() == nil; i++ {
				if err := crashLoadStep(loadCtx, c, acks, w, i); err != nil {
					if !killed.Load() { // after the kill, failures are expected
						acks.fail(fmt.Errorf("worker %d step %d: %w", w, i, err))
					}
					return
				}
			}
		})
	}
	loadDone := make(chan struct{})
	go func() { wg.Wait(); close(loadDone) }()

	select {
	case <-acks.reached:
	case <-loadDone:
	case <-ctx.Done():
	}
	killed.Store(true)
	require.NoError(t, cmd.Process.Kill())
	<-stderrDone // the pipe ends with the process; Wait comes after the reads
	waitErr := cmd.Wait()
	stopLoad()
	<-loadDone

	acks.mu.Lock()
	defer acks.mu.Unlock()
	require.Empty(t, acks.errs, "the load failed before the kill; hitl serve said:\n%s", childLog.String())
	require.GreaterOrEqual(t, acks.count, killAfter, "the load stopped early; hitl serve said:\n%s", childLog.String())
	var exitErr *exec.ExitError
	require.ErrorAs(t, waitErr, &exitErr, "hitl serve ended by itself:\n%s", childLog.String())
	require.Equal(t, "signal: killed", exitErr.Error(), "hitl serve ended by itself:\n%s", childLog.String())
	t.Logf("%d acknowledged before the kill landed: %d questions created, %d answered, %d rules learned, %d revoked",
		acks.count, len(acks.created), len(acks.answered), len(acks.learned), len(acks.revoked))

	db, err := store.Open(path)
	require.NoError(t, err, "the crashed file opens")
	t.Run("the crashed file passes Check", func(t *testing.T) {
		require.NoError(t, db.Check())
	})
	t.Run("every acknowledged question is stored with its run and text", func(t *testing.T) {
		for id, want := range acks.created {
			q, err := db.Question(ctx, id)
			require.NoError(t, err, "acknowledged question %s", id)
			assert.Equal(t, want.job, q.RunID, "question %s", id)
			assert.Equal(t, want.text, q.Question, "question %s", id)
			assert.Equal(t, want.rtype, q.ResponseType, "question %s", id)
			assert.Equal(t, want.key, q.IdempotencyKey, "question %s", id)
		}
	})
	t.Run("every acknowledged answer is stored with its normalised value", func(t *testing.T) {
		for id, want := range acks.answered {
			q, err := db.Question(ctx, id)
			require.NoError(t, err, "answered question %s", id)
			require.Equal(t, hitl.StatusAnswered, q.Status, "question %s", id)
			require.NotNil(t, q.Response, "question %s", id)
			assert.Equal(t, want, q.Response.Value, "question %s", id)
		}
	})
	t.Run("the audit trail verifies and holds every acknowledged question and answer", func(t *testing.T) {
		checkCrashAudit(t, db, acks.created, acks.answered)
	})
	require.NoError(t, db.Close())

	// A second run of the service on the same file.
	m := startMain(t, func(c *config.Config, _ *Main) { c.DB = path })
	restarted := client.NewClient(m.URL(), "", client.WithUser("crash-test"))
	t.Run("the restarted service serves every acknowledged question over HTTP", func(t *testing.T) {
		for id, want := range acks.created {
			q, err := restarted.Question(ctx, id)
			require.NoError(t, err, "GET question %s", id)
			assert.Equal(t, want.job, q.RunID, "question %s", id)
			assert.Equal(t, want.text, q.Question, "question %s", id)
			if value, ok := acks.answered[id]; ok {
				assert.Equal(t, hitl.StatusAnswered, q.Status, "question %s", id)
				if assert.NotNil(t, q.Response, "question %s", id) {
					assert.Equal(t, value, q.Response.Value, "question %s", id)
				}
			}
		}
	})
	t.Run("every acknowledged learned rule holds and no acknowledged revoke came back", func(t *testing.T) {
		require.NotEmpty(t, acks.learned, "the load taught no rule")
		require.NotEmpty(t, acks.revoked, "the load revoked no rule")
		for cmd := range acks.learned {
			d, err := restarted.CheckOperation(ctx, hitl.ApprovalRequest{Operation: hitl.Operation{Type: hitl.OpShell, Description: "check", Resource: cmd}})
			require.NoError(t, err, cmd)
			switch {
			case acks.revoked[cmd]:
				assert.Equal(t, hitl.EffectAsk, d.Effect, "revoked %s came back", cmd)
			case !acks.revoking[cmd]:
				assert.Equal(t, hitl.EffectAllow, d.Effect, "learned %s was lost", cmd)
			}
		}
	})
	t.Run("idempotency keys acknowledged before the crash still return their question", func(t *testing.T) {
		keyed := 0
		for id, want := range acks.created {
			if want.key == "" {
				continue
			}
			keyed++
			q, created, err := restarted.Create(ctx, want.job, crashNewQuestion(want))
			require.NoError(t, err, "asking again with key %s", want.key)
			assert.False(t, created, "key %s made a new question", want.key)
			assert.Equal(t, id, q.ID, "key %s", want.key)
		}
		require.NotZero(t, keyed, "the load acknowledged no question with an idempotency key")
	})
}

// crashLoadStep asks one question of worker w and answers about half of
// them, recording each operation once the API acknowledged it. Questions
// cycle through text, choice, approval and boolean; every third one has an
// idempotency key.
func crashLoadStep(ctx context.Context, c *client.Client, acks *crashAcks, w, i int) error {
	if i%5 == 4 {
		return crashPolicyStep(ctx, c, acks, w, i)
	}
	want := crashQuestion{job: fmt.Sprintf("crash-w%d", w)}
	var answer, normalised any
	switch i % 4 {
	case 0:
		want.rtype, want.text = hitl.TextResponse, fmt.Sprintf("w%d q%d: what should the release notes say?", w, i)
		answer = fmt.Sprintf("notes %d-%d", w, i)
		normalised = answer
	case 1:
		want.rtype, want.text = hitl.ChoiceResponse, fmt.Sprintf("w%d q%d: which database?", w, i)
		answer, normalised = "SQLite", "sqlite" // the label maps to the option's value
	case 2:
		want.rtype, want.text = hitl.ApprovalResponse, fmt.Sprintf("w%d q%d: deploy to production?", w, i)
		answer, normalised = "lgtm", hitl.Approve
		if i%8 == 6 {
			answer, normalised = "no", hitl.Deny
		}
	case 3:
		want.rtype, want.text = hitl.BooleanResponse, fmt.Sprintf("w%d q%d: drop the cache?", w, i)
		answer, normalised = "yes", true
	}
	if i%3 == 0 {
		want.key = fmt.Sprintf("key-%d-%d", w, i)
	}
	q, created, err := c.Create(ctx, want.job, crashNewQuestion(want))
	if err != nil {
		return err
	}
	if !created || q.RunID != want.job || q.Question != want.text || q.ResponseType != want.rtype {
		return errors.New("ask acknowledged something else than was asked")
	}
	acks.ack(func() { acks.created[q.ID] = want })

	if (i/4)%2 == 1 {
		return nil
	}
	got, err := c.Answer(ctx, q.ID, hitl.Response{Value: answer})
	if err != nil {
		return err
	}
	if got == nil || got.Response == nil || got.Response.Value != normalised {
		return fmt.Errorf("answer %v to %s acknowledged as %+v, want %v", answer, q.ID, got, normalised)
	}
	acks.ack(func() { acks.answered[q.ID] = normalised })
	return nil
}

// teach asks about op in run and answers "always allow": the policy
// learns a rule for it.
func teach(ctx context.Context, c *client.Client, op hitl.Operation, run string) error {
	out, err := c.RequestOperation(ctx, hitl.ApprovalRequest{Operation: op, RunID: run})
	if err != nil {
		return err
	}
	if out.Effect != hitl.EffectAsk || !out.Learnable {
		return fmt.Errorf("%s: the policy said %s (learnable %v), want a question", op.Resource, out.Effect, out.Learnable)
	}
	_, err = c.Answer(ctx, out.QuestionID, hitl.Response{Value: hitl.Approve, Always: true})
	return err
}

// crashPolicyStep changes the policy concurrently with the other
// workers: an approval answered "always allow" teaches a rule, and every
// other taught rule is revoked again.
func crashPolicyStep(ctx context.Context, c *client.Client, acks *crashAcks, w, i int) error {
	cmd := fmt.Sprintf("make target-%d-%d", w, i)
	op := hitl.Operation{Type: hitl.OpShell, Description: "crash " + cmd, Resource: cmd}
	if err := teach(ctx, c, op, fmt.Sprintf("crash-w%d", w)); err != nil {
		return err
	}
	acks.ack(func() { acks.learned[cmd] = true })
	if i%10 != 9 {
		return nil
	}
	d, err := c.CheckOperation(ctx, hitl.ApprovalRequest{Operation: op})
	if err != nil {
		return err
	}
	id := strings.TrimSuffix(strings.Fields(d.Rule + " _")[1], ":")
	if d.Effect != hitl.EffectAllow || !strings.HasPrefix(id, "r_") {
		return fmt.Errorf("%s: taught, then decided %s by %q", cmd, d.Effect, d.Rule)
	}
	acks.ack(func() { acks.revoking[cmd] = true })
	if _, err := c.RevokeRule(ctx, id); err != nil {
		return err
	}
	acks.ack(func() { acks.revoked[cmd] = true })
	return nil
}

// crashNewQuestion is the request that asks want.
func crashNewQuestion(want crashQuestion) hitl.NewQuestion {
	n := hitl.NewQuestion{Question: want.text, IdempotencyKey: want.key}
	switch want.rtype {
	case hitl.ChoiceResponse:
		n.Options = []hitl.Option{{Label: "Postgres", Value: "pg"}, {Label: "SQLite", Value: "sqlite"}}
	case hitl.ApprovalResponse:
		n.Type = hitl.Approval
	case hitl.BooleanResponse:
		n.InputType = hitl.ConfirmationInput
	}
	return n
}

// TestServeCrashChild is the process TestServeCrash kills: `hitl serve`
// configured by HITL_DB and HITL_LISTEN, as the command runs it.
func TestServeCrashChild(t *testing.T) {
	if os.Getenv(serveCrashChildEnv) != "1" {
		t.Skip("run by TestServeCrash")
	}
	// The parent kills this process long before the deadline; the deadline
	// only keeps an orphan from serving forever.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	code := run(ctx, []string{"serve"}, &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv})
	t.Fatalf("hitl serve was not killed within a minute (exit code %d)", code)
}
