// Package agent is hitl's HTTP API and, for now, its Go client SDK.
//
// The server (NewServer, routes in server.go) serves the REST API, the
// long poll and the SSE streams of docs/protocol.md#questions to agents
// and people. It takes Services, the narrow parts of the application it
// serves, filled by ServicesOf; errors leave it through one table
// (errorTable in errors.go).
//
// The client (NewClient, Client) is the Go SDK over that API; it reads the
// same error table back, so that fault.Code works across the wire. Issue
// 36 moves it to a package of its own that does not import the
// application (config/layers_test.go lists the import that climbs).
//
// The wire format follows docs/protocol.md#conventions: camelCase JSON,
// errors as {"code": ..., "message": ...} with hitl's error codes.
package api
