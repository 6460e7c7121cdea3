// Package agent is the agent edge of hitl: the HTTP API that agents call to
// ask questions and request approvals (docs/protocol.md#questions: the REST API plus a long poll
// and an SSE stream), and the Go client SDK, which implements
// hitl.QuestionService over that API.
//
// The wire format follows docs/protocol.md#conventions: camelCase JSON, errors as
// {"code": ..., "message": ...} with hitl's error codes.
package agent
