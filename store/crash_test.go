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

	"github.com/hitlbot/hitl"
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
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$")
		cmd.Env = append(os.Environ(), crashEnv+"="+path)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())

		created := map[string]bool{}
		answered := map[string]string{}
		const killAfter = 300
		acks, killed := 0, false
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			switch {
			case len(f) == 2 && f[0] == "created":
				created[f[1]] = true
			case len(f) == 3 && f[0] == "answered":
				answered[f[1]] = f[2]
			default:
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
	svc := hitl.NewService(db, hitl.ServiceConfig{})
	var mu sync.Mutex
	ack := func(format string, args ...any) {
		line := fmt.Sprintf(format+"\n", args...)
		mu.Lock()
		defer mu.Unlock()
		if _, err := os.Stdout.WriteString(line); err != nil {
			os.Exit(3) // the parent is gone
		}
	}
	// The parent kills this process long before the deadline; the deadline
	// only keeps an orphan from running forever.
	deadline := time.Now().Add(time.Minute)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			ctx := principaltest.As(context.Background(), fmt.Sprintf("cli:worker%d", w))
			for i := 0; time.Now().Before(deadline); i++ {
				q, _, err := svc.Create(ctx, fmt.Sprintf("job-%d", w), hitl.NewQuestion{Question: "Which database?"})
				if err != nil {
					panic(err)
				}
				ack("created %s", q.ID)
				if i%2 == 1 {
					continue
				}
				value := fmt.Sprintf("answer-%d-%d", w, i)
				if _, err := svc.Answer(principaltest.As(ctx, "slack:UPERSON"), q.ID, hitl.Response{Value: value}); err != nil {
					panic(err)
				}
				ack("answered %s %s", q.ID, value)
			}
		})
	}
	wg.Wait()
	t.Fatal("not killed within a minute")
}
