// Package wire is the HTTP API's wire format, shared by the server
// (package api) and the Go SDK (package client): the JSON bodies of the
// endpoints (wire.go), the header that names a tokenless caller, and the
// one table where hitl's error codes meet HTTP statuses, read both ways
// (errors.go: the server writes a code with StatusOf, the SDK reads a
// response back with DecodeError and CodeOfStatus).
//
// It holds no behaviour beyond encoding: no handlers, no client, nothing
// of the application.
package wire
