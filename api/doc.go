// Package api is hitl's HTTP API server.
//
// The server (NewServer, routes in server.go) serves the REST API, the
// long poll and the SSE streams of docs/protocol.md#questions to agents
// and people. It takes Services, the root's service interfaces (and two of
// its own), filled by the wiring in cmd/hitl; errors leave it through one
// table (api/wire's errorTable, written by writeError in errors.go).
//
// The request and response bodies and the error table live in api/wire,
// which the Go SDK (package client) reads too, so that the two sides
// cannot drift apart. The SDK does not import this package.
//
// The wire format follows docs/protocol.md#conventions: camelCase JSON,
// errors as {"code": ..., "message": ...} with hitl's error codes.
package api
