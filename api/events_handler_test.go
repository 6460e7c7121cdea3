package api

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/principaltest"

	"github.com/hitlbot/hitl"
	"github.com/stretchr/testify/require"
)

// noRunReads counts the reads of run state, which the stream must not do.
type noRunReads struct {
	hitl.RunService
	reads atomic.Int64
}

var _ hitl.RunService = (*noRunReads)(nil)

func (n *noRunReads) RunState(ctx context.Context, id string) (*hitl.RunState, error) {
	n.reads.Add(1)
	return n.RunService.RunState(ctx, id)
}

func (n *noRunReads) RunRecord(ctx context.Context, id string) (*hitl.Run, error) {
	n.reads.Add(1)
	return n.RunService.RunRecord(ctx, id)
}

// requireEvent checks an SSE event's id, type and job.
func requireEvent(t *testing.T, ev sse, id, typ, job string) {
	t.Helper()
	require.Equal(t, id, ev.id, "id of %+v", ev)
	require.Equal(t, typ, ev.event, "event of %+v", ev)
	require.Equal(t, typ, ev.data["type"], "type of %+v", ev)
	require.Equal(t, job, ev.data["jobId"], "jobId of %+v", ev)
}

func requireStatus(t *testing.T, ev sse, job, status string) {
	t.Helper()
	requireEvent(t, ev, "", "status", job)
	require.Equal(t, status, ev.data["status"])
}

func TestEvents(t *testing.T) {
	t.Run("streams_events_in_order_each_followed_by_status", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		ch := e.openEvents(t, "")
		q1 := e.ask(t, "job-1", blockingQ)
		ev := next(t, ch)
		requireEvent(t, ev, "1", "question_asked", "job-1")
		require.Equal(t, q1.ID, ev.data["questionId"])
		asked := sub(t, ev.data, "question")
		require.Equal(t, "Which database?", asked["question"])
		require.Equal(t, "blocking", asked["type"])
		require.Equal(t, "choice", asked["responseType"])
		require.Len(t, asked["options"], 2)
		require.Equal(t, "2025-03-01T12:30:00Z", asked["timeoutAt"])
		requireStatus(t, next(t, ch), "job-1", "waiting_for_input")

		e.answer(t, q1.ID, hitl.Response{Value: "prod", Text: "go"})
		ev = next(t, ch)
		requireEvent(t, ev, "2", "question_answered", "job-1")
		require.Equal(t, map[string]any{"type": "choice", "value": "prod", "text": "go"}, ev.data["response"])
		require.Equal(t, "slack:U024BE7LH", ev.data["by"])
		requireStatus(t, next(t, ch), "job-1", "running")

		q2 := e.ask(t, "job-1", hitl.NewQuestion{Question: "Delete 3 files?", Type: hitl.Approval})
		requireEvent(t, next(t, ch), "3", "question_asked", "job-1")
		requireStatus(t, next(t, ch), "job-1", "waiting_for_approval")
		_, err := e.svc.Questions.Cancel(principaltest.As(context.Background(), "api:test"), q2.ID, "not needed")
		require.NoError(t, err)
		ev = next(t, ch)
		requireEvent(t, ev, "4", "question_cancelled", "job-1")
		require.Equal(t, "not needed", ev.data["reason"])
		requireStatus(t, next(t, ch), "job-1", "running")

		e.ask(t, "job-1", hitl.NewQuestion{Question: "Retry?", Type: hitl.ErrorRecovery, ResponseType: hitl.BooleanResponse,
			DefaultResponse: &hitl.Response{Value: true}})
		requireEvent(t, next(t, ch), "5", "question_asked", "job-1")
		requireStatus(t, next(t, ch), "job-1", "waiting_for_input")
		e.clock.Add(11 * time.Minute)
		n, err := e.svc.Questions.SweepExpired(context.Background())
		require.NoError(t, err)
		require.Equal(t, 1, n)
		ev = next(t, ch)
		requireEvent(t, ev, "6", "question_timeout", "job-1")
		require.Equal(t, map[string]any{"type": "boolean", "value": true}, ev.data["response"])
		requireStatus(t, next(t, ch), "job-1", "running")
	})
	t.Run("last_event_id_skips_seen_events", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		a := e.ask(t, "job-1", textQ)
		e.answer(t, a.ID, hitl.Response{Value: "x"})
		b := e.ask(t, "job-1", textQ)
		ch := e.openEvents(t, "?after=1", "Last-Event-ID", "2")
		ev := next(t, ch)
		requireEvent(t, ev, "3", "question_asked", "job-1")
		require.Equal(t, b.ID, ev.data["questionId"])
		requireStatus(t, next(t, ch), "job-1", "waiting_for_input")
	})
	t.Run("stream_without_after_starts_live_without_old_events", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		old := e.ask(t, "job-1", textQ)
		e.answer(t, old.ID, hitl.Response{Value: "x"})
		ch := e.openEvents(t, "")
		q := e.ask(t, "job-2", textQ)
		ev := next(t, ch)
		requireEvent(t, ev, "3", "question_asked", "job-2")
		require.Equal(t, q.ID, ev.data["questionId"])
	})
	t.Run("second_live_stream_starts_where_the_first_is", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		first := e.openEvents(t, "")
		e.ask(t, "job-1", textQ)
		requireEvent(t, next(t, first), "1", "question_asked", "job-1")
		second := e.openEvents(t, "")
		e.ask(t, "job-2", textQ)
		requireEvent(t, next(t, second), "2", "question_asked", "job-2")
	})
	t.Run("after_0_replays_the_log_then_follows_it", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		a := e.ask(t, "job-1", textQ)
		e.answer(t, a.ID, hitl.Response{Value: "x"})
		ch := e.openEvents(t, "?after=0")
		requireEvent(t, next(t, ch), "1", "question_asked", "job-1")
		requireStatus(t, next(t, ch), "job-1", "waiting_for_input")
		requireEvent(t, next(t, ch), "2", "question_answered", "job-1")
		requireStatus(t, next(t, ch), "job-1", "running")
		e.ask(t, "job-1", textQ)
		requireEvent(t, next(t, ch), "3", "question_asked", "job-1")
	})
	t.Run("last_event_id_resumes_then_follows_live", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		for range 3 {
			e.ask(t, "job-1", textQ)
		}
		ch := e.openEvents(t, "", "Last-Event-ID", "2")
		requireEvent(t, next(t, ch), "3", "question_asked", "job-1")
		requireStatus(t, next(t, ch), "job-1", "waiting_for_input")
		e.ask(t, "job-1", textQ)
		requireEvent(t, next(t, ch), "4", "question_asked", "job-1")
	})
	t.Run("status_comes_from_the_event_without_reading_the_run", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		blind := &noRunReads{RunService: e.svc.Runs}
		svcs := servicesOf(e.svc)
		svcs.Runs = blind
		srv := NewServer(svcs, ServerConfig{Logger: discard})
		t.Cleanup(srv.Close)
		e.http = httptest.NewServer(srv)
		t.Cleanup(e.http.Close)
		ch := e.openEvents(t, "")
		q := e.ask(t, "job-1", blockingQ)
		requireEvent(t, next(t, ch), "1", "question_asked", "job-1")
		requireStatus(t, next(t, ch), "job-1", "waiting_for_input")
		e.answer(t, q.ID, hitl.Response{Value: "prod"})
		requireEvent(t, next(t, ch), "2", "question_answered", "job-1")
		requireStatus(t, next(t, ch), "job-1", "running")
		require.Zero(t, blind.reads.Load(), "RunState or Run was called")
	})
	t.Run("after_query_skips_seen_events", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		a := e.ask(t, "job-1", textQ)
		e.answer(t, a.ID, hitl.Response{Value: "x"})
		ch := e.openEvents(t, "?after=1")
		requireEvent(t, next(t, ch), "2", "question_answered", "job-1")
	})
	t.Run("job_filter_keeps_one_job", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		e.ask(t, "job-1", textQ)
		e.ask(t, "job-2", textQ)
		e.ask(t, "job-1", textQ)
		e.ask(t, "job-2", textQ)
		ch := e.openEvents(t, "?after=0&jobId=job-2")
		requireEvent(t, next(t, ch), "2", "question_asked", "job-2")
		requireStatus(t, next(t, ch), "job-2", "waiting_for_input")
		requireEvent(t, next(t, ch), "4", "question_asked", "job-2")
	})
	t.Run("job_filter_replays_the_run_across_reads_then_goes_live", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		const n = eventBatch + 44 // the run's replay takes two reads
		for range n {
			e.ask(t, "job-1", textQ)
			e.ask(t, "job-2", textQ)
		}
		ch := e.openEvents(t, "?after=0&jobId=job-2")
		for i := range n {
			requireEvent(t, next(t, ch), strconv.Itoa(2*i+2), "question_asked", "job-2")
			requireStatus(t, next(t, ch), "job-2", "waiting_for_input")
		}
		e.ask(t, "job-1", textQ)
		e.ask(t, "job-2", textQ)
		requireEvent(t, next(t, ch), strconv.Itoa(2*n+2), "question_asked", "job-2")
	})
	t.Run("sensitive_answers_are_redacted", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		q := e.ask(t, "job-1", hitl.NewQuestion{Question: "Key?", Sensitive: true})
		e.answer(t, q.ID, hitl.Response{Value: "s3cret"})
		ch := e.openEvents(t, "?after=1")
		ev := next(t, ch)
		requireEvent(t, ev, "2", "question_answered", "job-1")
		require.Nil(t, sub(t, ev.data, "response")["value"])
		require.Equal(t, true, sub(t, ev.data, "response")["redacted"])
	})
	t.Run("idle_stream_gets_heartbeats", func(t *testing.T) {
		e := newEnv(t, ServerConfig{Heartbeat: 5 * time.Millisecond})
		ch := e.openEvents(t, "")
		for {
			ev := recv(t, ch)
			if strings.HasPrefix(ev.comment, "ping ") {
				require.Contains(t, ev.comment, "2025-03-01T12:00:00Z")
				return
			}
		}
	})
	for _, q := range []struct{ name, query, header string }{
		{"bad_last_event_id_is_400", "", "x"},
		{"bad_after_is_400", "?after=-1", ""},
		{"bad_job_id_is_400", "?jobId=%20", ""},
	} {
		t.Run(q.name, func(t *testing.T) {
			e := newEnv(t, ServerConfig{})
			var headers []string
			if q.header != "" {
				headers = []string{"Last-Event-ID", q.header}
			}
			requireError(t, e.call(t, "GET", "/api/events"+q.query, "", headers...), 400, fault.EINVALID)
		})
	}
}

// TestTopicReplayByRun: GET /api/topics/loop:current?run_id=X&after=0
// replays X's loop events (read by the log's run index) and goes on live.
func TestTopicReplayByRun(t *testing.T) {
	e := newEnv(t, ServerConfig{})
	state := func(run string, iter int) {
		t.Helper()
		r := e.call(t, "POST", "/api/topics/loop:current", fmt.Sprintf(`{"schema":1,"event":"STATE","run_id":%q,"stack":[{"id":%[1]q,"iter":%d}]}`, run, iter))
		require.Less(t, r.status, 300, r.raw)
	}
	for i := range 3 {
		state("job-a", i)
		state("job-b", i)
	}
	ch := e.openSSE(t, context.Background(), "/api/topics/loop:current?run_id=job-b&after=0")
	var prev int
	for i := range 3 {
		ev := next(t, ch)
		require.Equal(t, "job-b", ev.data["run_id"], "event %d", i)
		id, err := strconv.Atoi(ev.id)
		require.NoError(t, err)
		require.Greater(t, id, prev)
		prev = id
	}
	state("job-a", 9)
	state("job-b", 9)
	ev := next(t, ch)
	require.Equal(t, "job-b", ev.data["run_id"])
	require.Equal(t, float64(9), ev.data["stack"].([]any)[0].(map[string]any)["iter"])
}
