package main

import (
	"fmt"

	"github.com/hitlbot/hitl/mcp"
	"github.com/hitlbot/hitl/policy"
)

// operation is the event's tool call as the operation the policy decides,
// with its file changes as diffs computed here, beside the files (the
// hook runs on the agent's machine, in the session's directory).
func (h *hook) operation() policy.Operation {
	return h.call().OperationAt(fmt.Sprintf("%s session %s in %s", h.agent, h.in.SessionID, h.in.CWD), h.in.CWD, mcp.ReadLocal)
}
