// Package client is hitl's Go SDK: a Client over the HTTP API
// (docs/api.md) that implements the root's service interfaces
// (hitl.QuestionService, hitl.RunService, hitl.PolicyService …), so that
// an edge uses a local service or a remote one alike.
//
// Errors come back as the *fault.Error the server wrote, read through the
// same table the server writes with (package api/wire), so fault.Code
// works across the wire. The SDK imports the vocabulary and api/wire,
// never the application (service) nor the server (api):
// config/layers_test.go fails if it does.
package client
