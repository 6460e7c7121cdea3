package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/steer"
)

// sseEvent is the data of one SSE event, in the questions API's shapes (docs/protocol.md#events):
// question_asked carries the question, question_answered the response;
// question_timeout and question_cancelled carry the response used (the
// default, if any) and the cancel reason; status carries the job's status;
// refused (admins only) carries who tried which action and the rule that
// refused it, question_reopened why the question waits again.
type sseEvent struct {
	Type       hitl.EventType  `json:"type"`
	QuestionID string          `json:"questionId,omitempty"`
	RunID      string          `json:"jobId"`
	Question   *sseQuestion    `json:"question,omitempty"`
	Response   *hitl.Response  `json:"response,omitempty"`
	Reason     string          `json:"reason,omitempty"`
	Action     auth.Action     `json:"action,omitempty"`
	Status     steer.RunStatus `json:"status,omitempty"`
	By         string          `json:"by,omitempty"`
	At         *time.Time      `json:"at,omitempty"`
}

// sseQuestion is the question of a question_asked event (docs/protocol.md#events).
type sseQuestion struct {
	Question     string                `json:"question"`
	Type         hitl.QuestionType     `json:"type"`
	ResponseType hitl.ResponseType     `json:"responseType"`
	InputType    hitl.InputType        `json:"inputType,omitempty"`
	Sensitive    bool                  `json:"sensitive,omitempty"`
	Options      []hitl.Option         `json:"options,omitempty"`
	Context      *hitl.QuestionContext `json:"context,omitempty"`
	TimeoutAt    *time.Time            `json:"timeoutAt"`
	Assignees    []string              `json:"assignees,omitempty"`
	Default      *hitl.Response        `json:"defaultResponse,omitempty"`
	Status       hitl.Status           `json:"status,omitempty"`
	Metadata     map[string]any        `json:"metadata,omitempty"`
}

// toSSE shapes a log event as the SSE payload (docs/protocol.md#events).
func toSSE(ev *hitl.Event) sseEvent {
	out := sseEvent{Type: ev.Type, QuestionID: ev.QuestionID, RunID: ev.RunID, Response: ev.Response, Status: ev.Status, By: ev.Actor,
		Reason: ev.Reason, Action: ev.Action}
	if !ev.At.IsZero() {
		at := ev.At
		out.At = &at
	}
	q := ev.Question
	if q == nil {
		return out
	}
	switch ev.Type {
	case hitl.EventQuestionAsked:
		out.Response = nil
		out.Question = &sseQuestion{
			Question: q.Question, Type: q.Type, ResponseType: q.ResponseType, InputType: q.InputType,
			Sensitive: q.Sensitive, Options: q.Options, Context: q.Context, TimeoutAt: q.TimeoutAt,
			Assignees: q.Assignees, Default: q.DefaultResponse, Status: q.Status, Metadata: q.Metadata,
		}
	}
	return out
}

// encodeFrame encodes ev as the stream shows it: the event with its log
// sequence as id and, for a question event, a status event after it with
// the run's status after the event (without an id, so resuming is by log
// sequence only). The status is the one the event recorded, computed in
// its transaction: nothing is read to show it.
func encodeFrame(ev *hitl.Event) ([]byte, error) {
	var buf bytes.Buffer
	if err := writeSSE(&buf, strconv.FormatUint(ev.Seq, 10), ev.Type, toSSE(ev)); err != nil {
		return nil, err
	}
	if ev.Type == hitl.EventStatus || ev.Type == hitl.EventRefused || ev.QuestionID == "" || ev.Status == "" {
		return buf.Bytes(), nil // a refusal changes nothing
	}
	status := sseEvent{Type: hitl.EventStatus, RunID: ev.RunID, Status: ev.Status}
	if err := writeSSE(&buf, "", hitl.EventStatus, status); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeSSE writes one event. The data is one line of JSON.
func writeSSE(w io.Writer, id string, typ hitl.EventType, data any) error {
	b, err := json.Marshal(data)
	if err != nil {
		return err
	}
	if id != "" {
		if _, err := fmt.Fprintf(w, "id: %s\n", id); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
	return err
}
