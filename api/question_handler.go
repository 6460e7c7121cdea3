package api

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/api/wire"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
)

// handleQuestion serves GET /api/questions/{id}. With ?wait=<duration>
// (capped at MaxWait) it long-polls: it answers as soon as the question is
// settled, or with the still-pending question when the wait elapses.
func (s *Server) handleQuestion(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	wait, err := s.parseWait(r.URL.Query().Get("wait"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	if wait == 0 {
		q, err := s.svc.Question(r.Context(), id)
		s.writeQuestion(w, r, q, err)
		return
	}
	release, ok := s.openStream(w, r)
	if !ok {
		return
	}
	defer release()
	q, err := s.waitFor(w, r, id, wait)
	if s.clientGone(r) {
		return // nobody to answer
	}
	s.writeQuestion(w, r, q, err)
}

// parseWait reads ?wait=: a Go duration ("60s", "5m"), capped at MaxWait.
func (s *Server) parseWait(v string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fault.Errorf(fault.EINVALID, "wait %q is invalid: use a duration like 60s or 5m", v)
	}
	return min(d, s.cfg.MaxWait), nil
}

// waitFor blocks in svc.Wait until question id is settled, wait elapses
// (then it returns the pending question), the client goes away or the
// server is closed (then it returns errClosing, so the client retries; a
// question settled meanwhile is still answered).
func (s *Server) waitFor(w http.ResponseWriter, r *http.Request, id string, wait time.Duration) (*hitl.Question, error) {
	ctx, done := s.longPoll(w, r, wait)
	defer done()
	q, err := s.svc.Wait(ctx, id)
	if err != nil && s.closing() {
		return nil, errClosing()
	}
	if !waitEnded(err) {
		return q, err
	}
	switch {
	case r.Context().Err() != nil:
		return nil, r.Context().Err()
	case q == nil:
		return s.svc.Question(r.Context(), id)
	}
	return q, nil
}

// longPoll bounds a long poll of wait: the response may be written until
// a while after it, and ctx ends with the wait, the request or the
// server's Close. done releases ctx.
func (s *Server) longPoll(w http.ResponseWriter, r *http.Request, wait time.Duration) (ctx context.Context, done func()) {
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(wait + 30*time.Second))
	ctx, cancel := context.WithTimeout(r.Context(), wait)
	stop := context.AfterFunc(s.base, cancel)
	return ctx, func() { stop(); cancel() }
}

// waitEnded reports whether err is a long poll's context ending (the
// wait elapsed, the client left, the server closed), not a failure.
func waitEnded(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}

func (s *Server) writeQuestion(w http.ResponseWriter, r *http.Request, q *hitl.Question, err error) {
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, wire.QuestionResponse{Question: q})
}

// handleAnswer serves POST /api/questions/{id}/answer. jobResumed tells
// whether the job no longer waits on any question after this answer.
func (s *Server) handleAnswer(w http.ResponseWriter, r *http.Request) {
	var req wire.AnswerRequest
	if err := decodeBody(w, r, s.cfg.MaxBodyBytes, &req, true); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	if req.Response == nil {
		writeError(w, r, s.log, fault.Errorf(fault.EINVALID, `"response" is required: {"response": {"type": ..., "value": ...}}`))
		return
	}
	q, err := s.svc.Answer(r.Context(), r.PathValue("id"), *req.Response)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, wire.AnswerResponse{Success: true, RunResumed: s.runResumed(r.Context(), q.RunID), Question: q})
}

// jobResumed reports whether job waits on nothing any more: one read of
// the run's record, however many questions it holds.
func (s *Server) runResumed(ctx context.Context, runID string) bool {
	if s.runs == nil {
		return false
	}
	run, err := s.runs.RunRecord(ctx, runID)
	if err != nil {
		s.log.WarnContext(ctx, "run after answer", "job", runID, "err", err)
		return false
	}
	return run.Status() == steer.RunRunning
}

// handleCancel serves POST /api/questions/{id}/cancel, body optional.
func (s *Server) handleCancel(w http.ResponseWriter, r *http.Request) {
	var req wire.CancelRequest
	if err := decodeBody(w, r, s.cfg.MaxBodyBytes, &req, false); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	q, err := s.svc.Cancel(r.Context(), r.PathValue("id"), req.Reason)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, wire.SuccessResponse{Success: true, Question: q})
}

// handleReceive serves POST /api/questions/{id}/receive: the asking agent
// gets a sensitive answer once, after which it is scrubbed.
func (s *Server) handleReceive(w http.ResponseWriter, r *http.Request) {
	q, err := s.svc.Receive(r.Context(), r.PathValue("id"))
	s.writeQuestion(w, r, q, err)
}
