package store

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/service"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/notify"
	"github.com/stretchr/testify/require"
)

// crashEnv names the database the crash child writes to; the child test
// does nothing without it.
const crashEnv = "HITL_STORE_CRASH_CHILD_DB"

// TestCrash kills a process that is writing to the store (SIGKILL, no
// chance to clean up) and checks that everything it acknowledged survived.
func TestCrash(t *testing.T) {
	t.Run("acknowledged creates and answers survive kill -9", func(t *testing.T) {
		if testing.Short() {
			t.Skip("runs a child process")
		}
		path := filepath.Join(t.TempDir(), "hitl.db")
		created := map[string]bool{}
		answered := map[string]string{}
		acks := killChild(t, "TestCrashChild", crashEnv, path, 300, func(f []string) bool {
			switch {
			case len(f) == 2 && f[0] == "created":
				created[f[1]] = true
			case len(f) == 3 && f[0] == "answered":
				answered[f[1]] = f[2]
			default:
				return false
			}
			return true
		})
		t.Logf("%d acknowledged before the kill landed: %d created, %d answered", acks, len(created), len(answered))

		db, err := Open(path)
		require.NoError(t, err)
		closeAndCheckOnCleanup(t, db)
		ctx := context.Background()
		for id := range created {
			_, err := db.Question(ctx, id)
			require.NoError(t, err, "acknowledged question %s", id)
		}
		for id, value := range answered {
			q, err := db.Question(ctx, id)
			require.NoError(t, err, "answered question %s", id)
			require.Equal(t, hitl.StatusAnswered, q.Status, "question %s", id)
			require.Equal(t, value, q.Response.Value, "question %s", id)
		}
	})
}

// killChild runs test child (a Test…Child of this binary) with env set to
// path, hands each line it prints to line, which reports whether the line
// is an acknowledgement, kills the child (SIGKILL) at the killAfter-th
// acknowledgement, and returns how many it read.
func killChild(t *testing.T, child, env, path string, killAfter int, line func(f []string) bool) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+child+"$")
	cmd.Env = append(os.Environ(), env+"="+path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	acks, killed := 0, false
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if !line(strings.Fields(sc.Text())) {
			continue
		}
		acks++
		if acks == killAfter {
			require.NoError(t, cmd.Process.Kill())
			killed = true
		}
	}
	require.NoError(t, sc.Err())
	err = cmd.Wait()
	require.True(t, killed, "child ended before %d acknowledgements: %v\n%s", killAfter, err, stderr.String())
	require.ErrorContains(t, err, "killed")
	return acks
}

// acker prints a crash child's acknowledgements, one line each, from any
// goroutine, and exits when the parent is gone.
func acker() func(format string, args ...any) {
	var mu sync.Mutex
	return func(format string, args ...any) {
		line := fmt.Sprintf(format+"\n", args...)
		mu.Lock()
		defer mu.Unlock()
		if _, err := os.Stdout.WriteString(line); err != nil {
			os.Exit(3) // the parent is gone
		}
	}
}

// TestCrashChild is the process TestCrash kills: it writes from several
// goroutines until killed, printing each write once it is acknowledged.
func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashEnv)
	if path == "" {
		t.Skip("run by TestCrash")
	}
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	svc := service.NewService(db, service.ServiceConfig{Notifier: notify.New()})
	ack := acker()
	// The parent kills this process long before the deadline; the deadline
	// only keeps an orphan from running forever.
	deadline := time.Now().Add(time.Minute)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			ctx := principaltest.As(context.Background(), fmt.Sprintf("cli:worker%d", w))
			for i := 0; time.Now().Before(deadline); i++ {
				q, _, err := svc.Questions.Create(ctx, fmt.Sprintf("job-%d", w), hitl.NewQuestion{Question: "Which database?"})
				if err != nil {
					panic(err)
				}
				ack("created %s", q.ID)
				if i%2 == 1 {
					continue
				}
				value := fmt.Sprintf("answer-%d-%d", w, i)
				if _, err := svc.Questions.Answer(principaltest.As(ctx, "slack:UPERSON"), q.ID, hitl.Response{Value: value}); err != nil {
					panic(err)
				}
				ack("answered %s %s", q.ID, value)
			}
		})
	}
	wg.Wait()
	t.Fatal("not killed within a minute")
}

// crashLearnedEnv names the database the learned-rule crash child writes
// to.
const crashLearnedEnv = "HITL_STORE_CRASH_LEARNED_DB"

// TestCrashLearned kills a process that teaches and revokes learned rules
// from several goroutines: every acknowledged put that was not revoked is
// there after the kill, and no acknowledged revoke came back.
func TestCrashLearned(t *testing.T) {
	t.Run("acknowledged learned rules and revokes survive kill -9", func(t *testing.T) {
		if testing.Short() {
			t.Skip("runs a child process")
		}
		path := filepath.Join(t.TempDir(), "hitl.db")
		// revoking is a delete asked for: it may have committed without
		// its acknowledgement getting out before the kill.
		put, revoking, deleted := map[string]bool{}, map[string]bool{}, map[string]bool{}
		acks := killChild(t, "TestCrashLearnedChild", crashLearnedEnv, path, 2000, func(f []string) bool {
			switch {
			case len(f) == 2 && f[0] == "put":
				put[f[1]] = true
			case len(f) == 2 && f[0] == "revoking":
				revoking[f[1]] = true
				return false
			case len(f) == 2 && f[0] == "deleted":
				deleted[f[1]] = true
			default:
				return false
			}
			return true
		})
		require.NotEmpty(t, deleted)
		t.Logf("%d acknowledged before the kill landed: %d put, %d deleted", acks, len(put), len(deleted))

		db, err := Open(path)
		require.NoError(t, err)
		closeAndCheckOnCleanup(t, db)
		ctx := context.Background()
		stored := map[string]bool{}
		f := hitl.LearnedRuleFilter{Limit: hitl.MaxPageSize}
		for {
			page, err := db.LearnedRules(ctx, f)
			require.NoError(t, err)
			for _, r := range page.Rules {
				stored[r.ID] = true
			}
			if page.NextCursor == "" {
				break
			}
			f.Cursor = page.NextCursor
		}
		for id := range put {
			if revoking[id] {
				continue
			}
			require.True(t, stored[id], "acknowledged learned rule %s", id)
			r, err := db.LearnedRule(ctx, crashRuleKey(id))
			require.NoError(t, err)
			require.NotNil(t, r, "acknowledged learned rule %s by its key", id)
			require.Equal(t, id, r.ID)
		}
		for id := range deleted {
			require.False(t, stored[id], "revoked learned rule %s came back", id)
			r, err := db.LearnedRule(ctx, crashRuleKey(id))
			require.NoError(t, err)
			require.Nil(t, r, "revoked learned rule %s came back under its key", id)
		}
	})
}

// crashRuleKey is the key the crash child teaches rule id under.
func crashRuleKey(id string) hitl.LearnedRuleKey {
	return hitl.LearnedRuleKey{Agent: "api:crash", OpType: hitl.OpShell, Resource: "make " + id}
}

// TestCrashLearnedChild is the process TestCrashLearned kills: 8
// goroutines teach rules and revoke every third one they taught, printing
// each revoke before it is asked for and each put and revoke once it is
// acknowledged.
func TestCrashLearnedChild(t *testing.T) {
	path := os.Getenv(crashLearnedEnv)
	if path == "" {
		t.Skip("run by TestCrashLearned")
	}
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ack := acker()
	deadline := time.Now().Add(time.Minute)
	ctx := context.Background()
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := 0; time.Now().Before(deadline); i++ {
				id := fmt.Sprintf("r_%d_%06d", w, i)
				k := crashRuleKey(id)
				now := time.Now()
				r := &hitl.LearnedRule{ID: id, Agent: k.Agent, OpType: k.OpType, Resource: k.Resource, CreatedBy: "slack:UPERSON",
					CreatedAt: now, ExpiresAt: now.Add(hitl.DefaultLearnedTTL)}
				if err := db.PutLearnedRule(ctx, r); err != nil {
					panic(err)
				}
				ack("put %s", id)
				if i%3 != 2 {
					continue
				}
				victim := fmt.Sprintf("r_%d_%06d", w, i-1)
				ack("revoking %s", victim)
				if _, err := db.DeleteLearnedRule(ctx, victim); err != nil {
					panic(err)
				}
				ack("deleted %s", victim)
			}
		})
	}
	wg.Wait()
	t.Fatal("not killed within a minute")
}
