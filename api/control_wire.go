package api

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
)

// The loop:control wire (docs/protocol.md#steering): what POST /api/topics/loop:control reads.

// parseControlRequest reads a REQUEST as the steering protocol's field table has it (docs/protocol.md#steering):
// schema must be 0, type REQUEST, and request_id, command, target.run_id,
// timestamp (ISO 8601) and payload present; escalate needs payload.model,
// redirect payload.instruction (the root validates the fields, as for a
// request made any other way). A malformed message is a fault.EINVALID error,
// with what could be read of it (to address the RESULT).
func parseControlRequest(data []byte) (steer.ControlMessage, error) {
	var raw struct {
		Schema    *int                 `json:"schema"`
		Type      string               `json:"type"`
		RequestID string               `json:"request_id"`
		Command   string               `json:"command"`
		Target    *steer.ControlTarget `json:"target"`
		Timestamp string               `json:"timestamp"`
		Payload   json.RawMessage      `json:"payload"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return steer.ControlMessage{}, fault.Errorf(fault.EINVALID, "the REQUEST is not a valid schema-0 message: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	m := steer.ControlMessage{Schema: steer.ControlSchema, Type: steer.MessageType(raw.Type), RequestID: raw.RequestID, Command: steer.Command(raw.Command), Timestamp: raw.Timestamp}
	if raw.Target != nil {
		m.Target = *raw.Target
	}
	if len(raw.Payload) > 0 && string(raw.Payload) != "null" {
		pd := json.NewDecoder(bytes.NewReader(raw.Payload))
		pd.DisallowUnknownFields()
		if err := pd.Decode(&m.Payload); err != nil {
			return m, fault.Errorf(fault.EINVALID, "payload: %s", strings.TrimPrefix(err.Error(), "json: "))
		}
	}
	switch {
	case raw.Schema == nil:
		return m, fault.Errorf(fault.EINVALID, "schema is required (0 for loop:control)")
	case *raw.Schema != steer.ControlSchema:
		return m, fault.Errorf(fault.EINVALID, "schema must be 0 for loop:control, got %d", *raw.Schema)
	case raw.Type == "":
		return m, fault.Errorf(fault.EINVALID, "type is required (REQUEST)")
	case m.Type != steer.MessageRequest:
		return m, fault.Errorf(fault.EINVALID, "type must be REQUEST, got %q: ACK and RESULT come from hitl", raw.Type)
	case raw.Payload == nil || string(raw.Payload) == "null":
		return m, fault.Errorf(fault.EINVALID, "payload is required (use {} when the command takes none)")
	case raw.Target == nil:
		return m, fault.Errorf(fault.EINVALID, "target is required: {\"run_id\": ...}")
	case raw.Timestamp == "":
		return m, fault.Errorf(fault.EINVALID, "timestamp is required (ISO 8601 UTC, like 2024-12-28T10:00:00Z)")
	}
	if _, err := time.Parse(time.RFC3339, raw.Timestamp); err != nil {
		return m, fault.Errorf(fault.EINVALID, "timestamp %q is not ISO 8601 (like 2024-12-28T10:00:00Z)", raw.Timestamp)
	}
	return m, nil
}
