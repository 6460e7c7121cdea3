package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/api/wire"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// badAnswers are 2xx bodies that are no answer: what a server going away
// mid-answer, a proxy's page or a cut connection leaves.
var badAnswers = map[string]string{
	"empty":            "",
	"truncated":        `{"question": {"id": "q_`,
	"not JSON":         "<html>bad gateway</html>",
	"null":             "null",
	"an array":         "[]",
	"more after JSON":  `{"runId": "x"} <html>`,
	"whitespace only ": " \n",
}

// TestNoAnswerIsRetried: a 2xx whose body is not one whole JSON object is
// a transport failure: the SDK's waiting calls retry it and return the
// real answer, never a zero or half-filled result (issue 32: Python took an
// empty 200 as an answer and crashed; a Go call returned a zero run).
func TestNoAnswerIsRetried(t *testing.T) {
	calls := []struct {
		name string
		path string // the request the bad answer replaces, once
		// do makes the call on c and checks its result.
		do func(t *testing.T, e *env, c *client.Client)
	}{
		{"Wait", "/api/questions/", func(t *testing.T, e *env, c *client.Client) {
			q := e.ask(t, "job-1", hitl.NewQuestion{Question: "Which?"})
			e.answer(t, q.ID, hitl.Response{Value: "blue"})
			got, err := c.Wait(context.Background(), q.ID)
			require.NoError(t, err)
			assert.Equal(t, hitl.StatusAnswered, got.Status)
		}},
		{"Control", "/api/topics/loop:control", func(t *testing.T, e *env, c *client.Client) {
			_, err := e.client.Report(context.Background(), "loop-1", wire.CheckpointRequest{Iter: 1})
			require.NoError(t, err)
			msgs, err := c.Control(context.Background(), steer.NewRequest(client.NewRequestID(), steer.CommandPause, "loop-1", time.Now(), steer.ControlPayload{}))
			require.NoError(t, err)
			require.NotEmpty(t, msgs)
			_, failed := msgs[len(msgs)-1].Failed()
			assert.False(t, failed, "%+v", msgs)
		}},
		{"Retrying a run record", "/api/runs/", func(t *testing.T, e *env, c *client.Client) {
			_, err := e.client.Report(context.Background(), "loop-2", wire.CheckpointRequest{Iter: 1})
			require.NoError(t, err)
			var run *hitl.Run
			err = c.Retrying(context.Background(), time.Now().Add(time.Minute), func() (err error) {
				run, err = c.RunRecord(context.Background(), "loop-2")
				return err
			})
			require.NoError(t, err)
			assert.Equal(t, "loop-2", run.ID)
		}},
	}
	for _, call := range calls {
		for name, body := range badAnswers {
			t.Run(call.name+" after "+name, func(t *testing.T) {
				e := newEnv(t, ServerConfig{})
				var spoiled atomic.Int32
				front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if strings.HasPrefix(r.URL.Path, call.path) && spoiled.Add(1) == 1 {
						w.Header().Set("Content-Type", "application/json")
						w.WriteHeader(http.StatusOK)
						_, _ = w.Write([]byte(body))
						return
					}
					e.server.ServeHTTP(w, r)
				}))
				t.Cleanup(front.Close)
				c := client.NewClient(front.URL, "", client.WithRetryBackoff(time.Millisecond, 10*time.Millisecond))
				call.do(t, e, c)
				require.GreaterOrEqual(t, spoiled.Load(), int32(2), "the bad answer was retried")
			})
		}
	}
}

// TestNoAnswerIsUnavailable: a single call given a 2xx that is no answer
// fails with unavailable (what callers retry), for every bad body.
func TestNoAnswerIsUnavailable(t *testing.T) {
	for name, body := range badAnswers {
		t.Run(name, func(t *testing.T) {
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = w.Write([]byte(body))
			}))
			t.Cleanup(hs.Close)
			c := client.NewClient(hs.URL, "")
			run, err := c.RunRecord(context.Background(), "loop-1")
			require.Equal(t, fault.EUNAVAILABLE, fault.Code(err), "%v", err)
			assert.Nil(t, run)
		})
	}
}
