package steer

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"time"

	"github.com/hitlbot/hitl/fault"
)

// The intervention protocol (docs/protocol.md#steering): controllers send REQUESTs on the
// loop:control topic (schema 0) and get an ACK as soon as the request is
// durably received, then a RESULT once the state change is committed.

// Schemas of the two topics.
const (
	ControlSchema = 0 // loop:control
	StateSchema   = 1 // loop:current
)

// Topics.
const (
	TopicControl = "loop:control"
	TopicCurrent = "loop:current"
)

// MessageType is a loop:control message's type.
type MessageType string

const (
	MessageRequest MessageType = "REQUEST"
	MessageAck     MessageType = "ACK"
	MessageResult  MessageType = "RESULT"
)

// Command is what a REQUEST asks of a run: pause, resume, cancel,
// escalate, plus redirect (a new instruction; docs/protocol.md#steering).
type Command string

const (
	CommandPause    Command = "pause"
	CommandResume   Command = "resume"
	CommandCancel   Command = "cancel"
	CommandEscalate Command = "escalate"
	CommandRedirect Command = "redirect"
)

// Commands lists the commands, in the order help shows them.
var Commands = []Command{CommandPause, CommandResume, CommandCancel, CommandEscalate, CommandRedirect}

// RESULT statuses and codes (docs/protocol.md#steering), plus forbidden for a controller
// the rules refuse and unsupported for a command the run's agent cannot
// carry out.
const (
	ResultSuccess = "success"
	ResultFailure = "failure"

	CodeNotFound     = "not_found"
	CodeInvalidState = "invalid_state"
	CodeDuplicate    = "duplicate"
	CodeBadRequest   = "bad_request"
	CodeForbidden    = "forbidden"
	// CodeUnsupported: the run's agent cannot carry the command out (a
	// coding-agent session cannot switch models from a hook).
	CodeUnsupported = "unsupported"
)

// ControlTarget names the run a message is about.
type ControlTarget struct {
	RunID   string `json:"run_id"`
	IssueID string `json:"issue_id,omitempty"`
}

// ControlPayload is a message's payload: the REQUEST's arguments
// (escalate: model, reason; redirect: instruction) or the RESULT's
// outcome. Empty fields are left out, so an ACK's payload is {}.
type ControlPayload struct {
	Model       string `json:"model,omitempty"`
	Reason      string `json:"reason,omitempty"`
	Instruction string `json:"instruction,omitempty"`

	Status        string `json:"status,omitempty"`
	Code          string `json:"code,omitempty"`
	Message       string `json:"message,omitempty"`
	PreviousModel string `json:"previous_model,omitempty"`
	NewModel      string `json:"new_model,omitempty"`
}

// ControlMessage is one message on loop:control, with the steering protocol's field
// names (docs/protocol.md#steering).
type ControlMessage struct {
	Schema    int            `json:"schema"`
	Type      MessageType    `json:"type"`
	RequestID string         `json:"request_id"`
	Command   Command        `json:"command"`
	Target    ControlTarget  `json:"target"`
	Timestamp string         `json:"timestamp"`
	Payload   ControlPayload `json:"payload"`
}

// Digest names what a REQUEST asks, beyond its id: its command, the run it
// targets and its arguments (not its timestamp, which a retry may change,
// nor the issue id, which only describes the run). A request id names one
// request: a retry carries the same digest.
func (m ControlMessage) Digest() string {
	sum := sha256.Sum256([]byte(strings.Join([]string{string(m.Command), m.Target.RunID,
		m.Payload.Model, m.Payload.Reason, m.Payload.Instruction}, "\x00")))
	return hex.EncodeToString(sum[:])
}

// Timestamp formats t as docs/protocol.md#steering does: ISO 8601 UTC to the second.
func Timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// Reply returns the ACK or RESULT that answers m, at now.
func (m ControlMessage) Reply(typ MessageType, now time.Time, p ControlPayload) ControlMessage {
	return ControlMessage{Schema: ControlSchema, Type: typ, RequestID: m.RequestID, Command: m.Command,
		Target: m.Target, Timestamp: Timestamp(now), Payload: p}
}

// Failed reports whether m is a RESULT with status failure, and its code.
func (m ControlMessage) Failed() (code string, failed bool) {
	return m.Payload.Code, m.Type == MessageResult && m.Payload.Status == ResultFailure
}

// Limits of a REQUEST.
const (
	MaxRequestIDLen   = 128
	MaxInstructionLen = 4000
	MaxModelLen       = 100
)

// Validate checks the fields every REQUEST needs, however it was made.
func (m ControlMessage) Validate() error {
	switch {
	case strings.TrimSpace(m.RequestID) == "":
		return fault.Errorf(fault.EINVALID, "request_id is required (a UUID v4)")
	case len(m.RequestID) > MaxRequestIDLen:
		return fault.Errorf(fault.EINVALID, "request_id is longer than %d characters", MaxRequestIDLen)
	case m.Command == "":
		return fault.Errorf(fault.EINVALID, "command is required: pause, resume, cancel, escalate or redirect")
	case !validCommand(m.Command):
		return fault.Errorf(fault.EINVALID, "command %q is unknown: use pause, resume, cancel, escalate or redirect", m.Command)
	case m.Target.RunID == "":
		return fault.Errorf(fault.EINVALID, "target.run_id is required")
	}
	if err := ValidateRunID(m.Target.RunID); err != nil {
		return fault.Errorf(fault.EINVALID, "target.run_id: %s", fault.Message(err))
	}
	switch m.Command {
	case CommandEscalate:
		if strings.TrimSpace(m.Payload.Model) == "" {
			return fault.Errorf(fault.EINVALID, "escalate needs payload.model (like opus)")
		}
		if len(m.Payload.Model) > MaxModelLen || len(m.Payload.Reason) > MaxInstructionLen {
			return fault.Errorf(fault.EINVALID, "payload.model or payload.reason is too long")
		}
	case CommandRedirect:
		if strings.TrimSpace(m.Payload.Instruction) == "" {
			return fault.Errorf(fault.EINVALID, "redirect needs payload.instruction")
		}
		if len(m.Payload.Instruction) > MaxInstructionLen {
			return fault.Errorf(fault.EINVALID, "payload.instruction is longer than %d characters", MaxInstructionLen)
		}
	}
	return nil
}

func validCommand(c Command) bool {
	for _, k := range Commands {
		if c == k {
			return true
		}
	}
	return false
}

// NewRequest returns a REQUEST for command on run, stamped now. id is the
// request id (callers make a UUID v4).
func NewRequest(id string, c Command, run string, now time.Time, p ControlPayload) ControlMessage {
	return ControlMessage{Schema: ControlSchema, Type: MessageRequest, RequestID: id, Command: c,
		Target: ControlTarget{RunID: run}, Timestamp: Timestamp(now), Payload: p}
}

// Failure is the payload of a RESULT that failed with code and msg.
func Failure(code, msg string) ControlPayload {
	return ControlPayload{Status: ResultFailure, Code: code, Message: msg}
}

var runIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,127}$`)

// ValidateRunID checks a run id (the questions API's jobId, docs/protocol.md#questions): 1-128 characters of letters, digits
// and . _ : / @ -, starting with a letter or digit.
func ValidateRunID(id string) error {
	if !runIDPattern.MatchString(id) {
		return fault.Errorf(fault.EINVALID, "job id %q is invalid: use 1-128 letters, digits, '.', '_', ':', '/', '@' or '-'", id)
	}
	return nil
}
