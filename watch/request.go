package watch

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
)

// Request is the file bridge's .delta/interaction/request.json (docs/protocol.md#the-file-bridge): what an engine
// that paused (status WAITING_FOR_INPUT, exit 101) wants to know.
type Request struct {
	Prompt    string         `json:"prompt"`
	InputType hitl.InputType `json:"input_type,omitempty"`
	Sensitive bool           `json:"sensitive,omitempty"`
	Timestamp string         `json:"timestamp,omitempty"`
}

// ParseRequest reads a request file's content. What is wrong is said
// plainly (a *fault.Error with code EINVALID); the question's own rules
// (lengths, which input types may be sensitive) are the service's.
func ParseRequest(b []byte) (Request, error) {
	var r Request
	if len(b) > MaxRequestFile {
		return r, fault.Errorf(fault.EINVALID, "it is larger than %d bytes", MaxRequestFile)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&r); err != nil {
		return r, fault.Errorf(fault.EINVALID, "it is not a JSON object with prompt, input_type, sensitive and timestamp: %v", err)
	}
	if dec.More() {
		return r, fault.Errorf(fault.EINVALID, "it holds more than one JSON value")
	}
	if strings.TrimSpace(r.Prompt) == "" {
		return r, fault.Errorf(fault.EINVALID, "its prompt is missing or empty")
	}
	switch r.InputType {
	case "", hitl.TextInput, hitl.PasswordInput, hitl.ConfirmationInput:
	default:
		return r, fault.Errorf(fault.EINVALID, "its input_type %q is not text, password or confirmation", r.InputType)
	}
	return r, nil
}

// Key is the idempotency key of the question asked for the request file
// at path with content b: the same file with the same content (prompt and
// timestamp included) is the same question, so that a watcher started
// again finds the question it asked before instead of asking again, and a
// new request (the engine writes a new timestamp) is a new question.
func Key(path string, b []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00", filepath.Clean(path))
	h.Write(b)
	return keyPrefix + hex.EncodeToString(h.Sum(nil))[:32]
}

// keyPrefix marks the idempotency keys of questions a watcher asked.
const keyPrefix = "watch:"

// Question is the hitl question the request asks.
func (r Request) Question(key, project, agentName string) hitl.NewQuestion {
	n := hitl.NewQuestion{Question: r.Prompt, InputType: r.InputType, Sensitive: r.Sensitive, IdempotencyKey: key,
		Context: &hitl.QuestionContext{Agent: agentName, ProjectName: project, CurrentStep: "ask_human"}}
	return n
}
