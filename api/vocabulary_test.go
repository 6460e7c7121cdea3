package api

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/principaltest"
)

// TestClientErrorCodes: the Go SDK's code for each end of a wait, the same
// strings as the Python and TypeScript clients (docs/api.md#client-error-codes;
// clients/python/tests/test_vocabulary.py).
func TestClientErrorCodes(t *testing.T) {
	for name, c := range map[string]struct {
		code string
		end  func(t *testing.T, e *env) error
	}{
		"the question timed out on the service": {"timed_out", func(t *testing.T, e *env) error {
			done, _ := e.askInBackground(t, "job-1", textQ)
			e.expire(t, 31*time.Minute)
			return recv(t, done).err
		}},
		"the client's wait ran out, the question pending": {"deadline_exceeded", func(t *testing.T, e *env) error {
			q := e.ask(t, "job-1", textQ)
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			_, err := e.client.Wait(ctx, q.ID)
			require.True(t, errors.Is(err, context.DeadlineExceeded), "still a context error: %v", err)
			require.Equal(t, hitl.StatusPending, e.pending(t, "job-1").Status)
			return err
		}},
		"the question was cancelled": {"cancelled", func(t *testing.T, e *env) error {
			done, q := e.askInBackground(t, "job-1", textQ)
			_, err := e.svc.Questions.Cancel(principaltest.As(context.Background(), "cli:alice"), q.ID, "not needed")
			require.NoError(t, err)
			return recv(t, done).err
		}},
		"a timeout outside the service's bounds": {"invalid", func(t *testing.T, e *env) error {
			m := 0.05 // 3 s, under the 5 min minimum
			n := textQ
			n.TimeoutMinutes = &m
			_, err := e.client.Ask(context.Background(), "job-1", n)
			require.Contains(t, fault.Message(err), "minimum of 5m")
			qs, lerr := e.svc.Questions.Questions(principaltest.As(context.Background(), "admin:t"), hitl.QuestionFilter{RunID: "job-1"})
			require.NoError(t, lerr)
			require.Empty(t, qs, "nothing was asked")
			return err
		}},
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, ServerConfig{})
			require.Equal(t, c.code, fault.Code(c.end(t, e)))
		})
	}
}
