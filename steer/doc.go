// Package steer is the steering protocol's vocabulary: how people steer a
// running agent and how an agent reports where it is
// (docs/protocol.md#steering).
//
// A controller sends a REQUEST (pause, resume, cancel, escalate, redirect)
// on loop:control and gets an ACK, then a RESULT (control.go); an agent
// publishes STATE, ABORT and DONE on loop:current (runcontrol.go); a run's
// control state and its status (running, paused, waiting, done, aborted,
// cancelled) follow from both. A coding agent (Claude Code, Codex) is
// steered through its hook calls instead: a Session, and the HookStep each
// call gets (session.go, agentversion.go).
//
// It decides nothing that needs a store: the service applies it. It sits
// below the root package, which names its types in the run record and the
// event log, and imports nothing of hitl's but the error type.
package steer
